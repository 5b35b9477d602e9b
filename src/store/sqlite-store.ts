// SQLite implementation of the Store (better-sqlite3, WAL).
//
// Durability: WAL with synchronous=NORMAL. A committed transaction survives a killed process
// (kill -9); after a power loss the last transactions may roll back, and because segments and
// checkpoints roll back together, the service replays what was lost (docs/design.md "Delivery semantics": gap-free resume).
// Statements are prepared once; one row per session per commit (a segment), never one per event.
//
// The schema, the mark and the migrations are sqlite-schema.ts.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensurePrivateFile, makeDirs } from '../util/make-dirs.js';
import type { SessionSpec } from '../config/schema.js';
import type { NewSegment, Segment } from '../wire/segment-framing.js';
import {
  PRUNE_FINISHED_AFTER_MS,
  type CheckpointUpdate,
  type DiscoveryClaim,
  type SessionLifecycle,
  type SessionRow,
  type SessionSource,
  type SpoolStats,
  type SpoolTotals,
  type Store,
} from './store.js';
import { adoptDatabase, migrateSqlite, SCHEMA, StoreOpenError, type MigrateOptions } from './sqlite-schema.js';
import { BUSY_TIMEOUT_MS, heldBy, lockStateDir } from './sqlite-state-lock.js';
import { StateFileCheck } from './state-file-check.js';
import { deleteFinishedSessions } from './sqlite-prune.js';
import { packSpans, prepareSpanStates, type SqliteSpanStates } from './sqlite-span-states.js';
import { toRow, type RawSession } from './sqlite-session-row.js';
import { OVERFLOW_PAGE_SIZE, settlePageSize, type PageSizeOutcome } from './sqlite-page-size.js';

export { StoreOpenError } from './sqlite-schema.js';

const READ_MAX_SEGMENTS = 256;
const WAL_CHECKPOINT_BYTES = 1000 * 4096;
/** Rows per multi-row INSERT: with a thousand live sessions a commit holds a thousand small segments, and one statement per row costs more than the row. */
const INSERT_ROWS = 32;
const SEGMENT_COLUMNS = '(session_id, first_seq, last_seq, records, bytes, oldest_ts, payload, epoch)';

export { PRUNE_FINISHED_AFTER_MS } from './store.js';

export interface SqliteStoreOptions extends MigrateOptions {
  /** Overrides PRUNE_FINISHED_AFTER_MS (tests). */
  pruneFinishedAfterMs?: number;
  /** Told of a session whose stored span state cannot be read: it is read without one. */
  onSpanStateUnreadable?: (sessionId: string, error: string) => void;
  /** The page size for `spool.mode` (sqlite-page-size.ts); the overflow mode's by default. */
  pageSize?: number;
  /** Overrides REBUILD_MAX_BYTES (tests). */
  rebuildMaxBytes?: number;
  /** Told when an existing file had other pages: rebuilt with these, or kept and why. */
  onPageSize?: (outcome: PageSizeOutcome) => void;
}

/** Opens (creating if needed) `<dir>/bridge.db`; `:memory:` for tests. */
export async function openSqliteStore(dirOrMemory: string, opts: SqliteStoreOptions = {}): Promise<SqliteStore> {
  return new SqliteStore(dirOrMemory, opts);
}

export class SqliteStore implements Store {
  private readonly db: Database.Database;
  /** Held for the life of the store: the OS releases it when the process dies, even by kill -9. */
  private readonly lock: Database.Database | undefined;
  private readonly stmts;
  private readonly spanStates: SqliteSpanStates;
  /** Absent in memory: there is no file to lose. */
  private readonly stateFile: StateFileCheck | undefined;

  constructor(dirOrMemory: string, opts: SqliteStoreOptions = {}) {
    let file = dirOrMemory;
    try {
      if (dirOrMemory !== ':memory:') {
        makeDirs(resolve(dirOrMemory));
        file = join(dirOrMemory, 'bridge.db');
        this.lock = lockStateDir(dirOrMemory);
        // 0600 before SQLite opens them: it gives the -wal and -shm files the database file's mode.
        for (const f of [file, `${file}-wal`, `${file}-shm`]) {
          if (f === file || existsSync(f)) ensurePrivateFile(f);
        }
      }
      // better-sqlite3's timeout is SQLite's busy timeout, for the open and every statement after.
      this.db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
    } catch (err) {
      if (err instanceof StoreOpenError) throw err;
      throw new StoreOpenError(`cannot open the state database in ${dirOrMemory}: ${(err as Error).message}`);
    }
    try {
      // Before the header is written (it fixes the page size); a small file with others is rebuilt.
      const wanted = opts.pageSize ?? OVERFLOW_PAGE_SIZE;
      this.db.pragma(`page_size = ${wanted}`);
      adoptDatabase(this.db, file);
      if (file !== ':memory:') {
        const outcome = settlePageSize(this.db, wanted, opts.rebuildMaxBytes);
        if (outcome) opts.onPageSize?.(outcome);
      }
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      // The checkpoint threshold counts pages: keep it at SQLite's default in bytes (1,000 pages of
      // 4 KiB), so the WAL grows no larger on a small volume whatever the file's page size.
      const pageSize = this.db.pragma('page_size', { simple: true }) as number;
      this.db.pragma(`wal_autocheckpoint = ${Math.max(1, Math.round(WAL_CHECKPOINT_BYTES / pageSize))}`);
      // After a burst (an outage's backlog delivered) the WAL is cut back instead of keeping its size.
      this.db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
      this.db.exec(SCHEMA);
      migrateSqlite(this.db, opts);
    } catch (err) {
      this.closeNow();
      if (err instanceof StoreOpenError) throw err;
      throw new StoreOpenError(`cannot use the state database ${file}: ${(err as Error).message}${heldBy(err)}`);
    }
    if (file !== ':memory:') this.stateFile = new StateFileCheck(file);
    const db = this.db;
    this.stmts = {
      sessions: db.prepare(
        'SELECT id, spec, source, lifecycle, checkpoint, epoch, source_id AS sourceId, t.state AS spans FROM sessions LEFT JOIN span_states t ON t.session_id = sessions.id ORDER BY added_at, id',
      ),
      session: db.prepare(
        'SELECT id, spec, source, lifecycle, checkpoint, epoch, source_id AS sourceId, t.state AS spans FROM sessions LEFT JOIN span_states t ON t.session_id = sessions.id WHERE id = ?',
      ),
      upsert:
        db.prepare(`INSERT INTO sessions (id, spec, source, lifecycle, added_at) VALUES (@id, @spec, @source, 'active', @now)
        ON CONFLICT(id) DO UPDATE SET spec = excluded.spec, source = CASE WHEN sessions.source = 'api' THEN 'api' ELSE excluded.source END, lifecycle = 'active', ended_at = NULL`),
      lifecycle: db.prepare(
        "UPDATE sessions SET lifecycle = @lifecycle, ended_at = CASE WHEN @lifecycle = 'active' THEN NULL ELSE coalesce(ended_at, @now) END WHERE id = @id",
      ),
      insert: db.prepare(`INSERT INTO spool_segments ${SEGMENT_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
      insertMany: db.prepare(
        `INSERT INTO spool_segments ${SEGMENT_COLUMNS} VALUES ${Array.from({ length: INSERT_ROWS }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      ),
      delRange: db.prepare('DELETE FROM spool_segments WHERE id >= ? AND id <= ?'),
      checkpoint: db.prepare(
        'UPDATE sessions SET checkpoint = ?, epoch = ?, source_id = coalesce(?, source_id) WHERE id = ?',
      ),
      read: db.prepare(`SELECT id, session_id AS sessionId, first_seq AS firstSeq, last_seq AS lastSeq, records, oldest_ts AS oldestTsMicros, payload, epoch
        FROM spool_segments WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`),
      del: db.prepare('DELETE FROM spool_segments WHERE id = ? RETURNING records, bytes'),
      totals: db.prepare(
        'SELECT coalesce(sum(records), 0) AS records, coalesce(sum(bytes), 0) AS bytes, coalesce(max(id), 0) AS maxId FROM spool_segments',
      ),
      oldest: db.prepare('SELECT oldest_ts AS ts FROM spool_segments ORDER BY id LIMIT 1'),
      probe: db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', ?)"),
      // Discovery's state lives in meta (no schema change): an older bridge ignores these keys.
      addNew: db.prepare(
        `INSERT INTO sessions (id, spec, source, lifecycle, added_at) VALUES (@id, @spec, @source, 'active', @now) ON CONFLICT(id) DO NOTHING`,
      ),
      metaGet: db.prepare('SELECT value FROM meta WHERE key = ?'),
      metaSet: db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)'),
    };
    this.spanStates = prepareSpanStates(db);
    this.totals = this.stmts.totals.get() as SpoolTotals;
    this.now = opts.now ?? Date.now;
    const unreadable = opts.onSpanStateUnreadable;
    this.toRow = (r) => toRow(r, (error) => unreadable?.(r.id, error));
    this.retentionMs = opts.pruneFinishedAfterMs ?? PRUNE_FINISHED_AFTER_MS;
    this.pruned = deleteFinishedSessions(db, this.spanStates, this.now() - this.retentionMs);
  }

  /** How long finished sessions' rows are kept (sqlite-prune.ts). */
  private readonly retentionMs: number;
  private readonly now: () => number;
  private readonly toRow: (r: RawSession) => SessionRow;
  /** Rows of long-finished sessions deleted when the store opened. */
  readonly pruned: number;

  async pruneFinished(): Promise<number> {
    return deleteFinishedSessions(this.db, this.spanStates, this.now() - this.retentionMs);
  }

  /** Running totals, kept exact without a table scan. */
  private totals: SpoolTotals;

  async sessions(): Promise<SessionRow[]> {
    return (this.stmts.sessions.all() as RawSession[]).map(this.toRow);
  }

  async putSession(spec: SessionSpec, source: SessionSource): Promise<SessionRow> {
    // A session added into a deleted file would be forgotten at the next start: refuse it now.
    this.stateFile?.assertPresent();
    this.stmts.upsert.run({ id: spec.id, spec: JSON.stringify(spec), source, now: this.now() });
    return this.toRow(this.stmts.session.get(spec.id) as RawSession);
  }

  async setLifecycle(sessionId: string, lifecycle: SessionLifecycle): Promise<void> {
    // The span state stays, removed or ended: it lists the spans the session still owes until they
    // are sent (store.ts dropSpanState).
    this.stmts.lifecycle.run({ lifecycle, id: sessionId, now: this.now() });
  }

  async dropSpanState(sessionId: string): Promise<void> {
    this.inTransaction(() => this.spanStates.dropIfInactive(sessionId));
  }

  /** Runs `fn` in a transaction, and tells the span states whether their deletions in it stand. */
  private inTransaction(fn: () => void): void {
    let committed = false;
    try {
      this.db.transaction(fn)();
      committed = true;
    } finally {
      this.spanStates.settle(committed);
    }
  }

  async addSessions(specs: readonly SessionSpec[], source: SessionSource): Promise<SessionRow[]> {
    const added: SessionRow[] = [];
    this.db.transaction(() => {
      const now = Date.now();
      for (const spec of specs) {
        if (this.stmts.addNew.run({ id: spec.id, spec: JSON.stringify(spec), source, now }).changes === 1) {
          added.push(this.toRow(this.stmts.session.get(spec.id) as RawSession));
        }
      }
    })();
    return added;
  }

  async claimDiscoveryPoll(minGapMs: number): Promise<DiscoveryClaim> {
    // One process owns this file (the lock), so the claim only spaces this process's own polls.
    const now = Date.now();
    const claimedAt = this.metaNumber('discovery_claimed_at');
    const claimed = claimedAt === null || claimedAt <= now - minGapMs || claimedAt > now;
    if (claimed) this.stmts.metaSet.run('discovery_claimed_at', String(now));
    return { claimed, lastSuccessAt: this.metaNumber('discovery_last_success'), now };
  }

  async recordDiscoveryPoll(startedAt: number): Promise<void> {
    const last = this.metaNumber('discovery_last_success');
    if (last === null || startedAt > last) this.stmts.metaSet.run('discovery_last_success', String(startedAt));
  }

  private metaNumber(key: string): number | null {
    const row = this.stmts.metaGet.get(key) as { value: string } | undefined;
    const n = row ? Number(row.value) : NaN;
    return Number.isFinite(n) ? n : null;
  }

  async commit(segments: readonly NewSegment[], checkpoints: readonly CheckpointUpdate[]): Promise<number[]> {
    // A commit into a deleted file reports success and keeps nothing: fail it as a full disk fails.
    this.stateFile?.assertPresent();
    const ids: number[] = [];
    let records = 0;
    let bytes = 0;
    // Serialized before the transaction: its write lock is held for the writes only.
    const spans = checkpoints.map((c) => {
      const text = c.spans?.();
      return text === undefined ? null : packSpans(text);
    });
    this.inTransaction(() => {
      let i = 0;
      const params: unknown[] = [];
      for (; i + INSERT_ROWS <= segments.length; i += INSERT_ROWS) {
        params.length = 0;
        for (let j = i; j < i + INSERT_ROWS; j++) pushSegment(params, segments[j]!);
        // Rows of one statement get consecutive ids (one writer, AUTOINCREMENT).
        const last = Number(this.stmts.insertMany.run(...params).lastInsertRowid);
        for (let j = INSERT_ROWS - 1; j >= 0; j--) ids.push(last - j);
      }
      for (; i < segments.length; i++) {
        params.length = 0;
        pushSegment(params, segments[i]!);
        ids.push(Number(this.stmts.insert.run(...params).lastInsertRowid));
      }
      checkpoints.forEach((c, k) => {
        this.stmts.checkpoint.run(c.checkpoint, c.epoch, c.sourceId ?? null, c.sessionId);
        const state = spans[k]!;
        if (state !== null) this.spanStates.write(c.sessionId, state);
        else this.spanStates.drop(c.sessionId);
      });
    });
    for (const s of segments) {
      records += s.records;
      bytes += s.payload.length;
    }
    this.totals.records += records;
    this.totals.bytes += bytes;
    if (ids.length > 0) this.totals.maxId = ids[ids.length - 1]!;
    return ids;
  }

  async readSegments(
    afterId: number,
    upToId: number,
    maxRecords: number,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<Segment[]> {
    const rows = this.stmts.read.all(afterId, upToId, READ_MAX_SEGMENTS) as Segment[];
    let records = 0;
    let bytes = 0;
    let n = 0;
    while (
      n < rows.length &&
      (n === 0 || (records + rows[n]!.records <= maxRecords && bytes + rows[n]!.payload.length <= maxBytes))
    ) {
      records += rows[n]!.records;
      bytes += rows[n++]!.payload.length;
    }
    const out = rows.slice(0, n);
    // Absent is epoch 0, as the segment was written (NewSegment).
    for (const r of out) if (r.epoch === 0) delete r.epoch;
    return out;
  }

  async deleteSegments(ids: readonly number[], known?: { records: number; bytes: number }): Promise<void> {
    if (ids.length === 0) return;
    let records = 0;
    let bytes = 0;
    const first = ids[0]!;
    const last = ids[ids.length - 1]!;
    // A claim is usually one run of consecutive ids: one range statement instead of one per segment.
    if (known && last - first + 1 === ids.length && isAscending(ids)) {
      const deleted = this.stmts.delRange.run(first, last).changes;
      if (deleted === ids.length) {
        this.totals.records -= known.records;
        this.totals.bytes -= known.bytes;
        return;
      }
      // Some were gone already (acknowledged twice): the totals cannot be known from the claim.
      this.totals = this.stmts.totals.get() as SpoolTotals;
      return;
    }
    this.db.transaction(() => {
      for (const id of ids) {
        const row = this.stmts.del.get(id) as { records: number; bytes: number } | undefined;
        if (!row) continue;
        records += row.records;
        bytes += row.bytes;
      }
    })();
    // Only after the commit: a failed transaction (disk full) deleted nothing.
    this.totals.records -= records;
    this.totals.bytes -= bytes;
  }

  async spoolTotals(): Promise<SpoolTotals> {
    return { ...this.totals };
  }

  async spoolStats(): Promise<SpoolStats> {
    const oldest = this.totals.records > 0 ? (this.stmts.oldest.get() as { ts: number } | undefined) : undefined;
    return { records: this.totals.records, bytes: this.totals.bytes, oldestTsMicros: oldest ? oldest.ts : null };
  }

  /**
   * Bytes inside the database file that deleted segments left free: SQLite reuses them, but the
   * file does not shrink, so the volume's free space alone would never show a drained spool's room.
   */
  reusableBytes(): number {
    if (!this.db.open) return 0;
    const pages = this.db.pragma('freelist_count', { simple: true }) as number;
    const size = this.db.pragma('page_size', { simple: true }) as number;
    return pages * size;
  }

  stateProblem(): string | undefined {
    return this.stateFile?.found;
  }

  async probeWritable(): Promise<void> {
    this.stmts.probe.run(String(Date.now()));
  }

  async close(): Promise<void> {
    this.closeNow();
  }

  private closeNow(): void {
    if (this.db?.open) this.db.close();
    if (this.lock?.open) this.lock.close();
  }
}

function pushSegment(params: unknown[], s: NewSegment): void {
  params.push(
    s.sessionId,
    s.firstSeq,
    s.lastSeq,
    s.records,
    s.payload.length,
    s.oldestTsMicros,
    s.payload,
    s.epoch ?? 0,
  );
}

function isAscending(ids: readonly number[]): boolean {
  for (let i = 1; i < ids.length; i++) if (ids[i]! <= ids[i - 1]!) return false;
  return true;
}
