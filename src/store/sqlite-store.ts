// SQLite implementation of the Store (better-sqlite3, WAL).
//
// Durability: WAL with synchronous=NORMAL. A committed transaction survives a killed process
// (kill -9); after a power loss the last transactions may roll back, and because spool rows and
// checkpoints roll back together, the service replays what was lost (DESIGN.md "Gap-free resume").
// Statements are prepared once; commits are batched by the SpoolWriter, never one per event.
import Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { makeDirs } from '../util/make-dirs.js';
import type { SessionSpec } from '../config/schema.js';
import type {
  CheckpointUpdate, SessionLifecycle, SessionRow, SessionSource, SpoolEntry, SpoolStats, SpooledRecord, Store,
} from './store.js';

const SCHEMA_VERSION = 1;

/** The state directory cannot be used (missing permissions, read-only file system, not a directory). */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  spec TEXT NOT NULL,
  source TEXT NOT NULL,
  lifecycle TEXT NOT NULL DEFAULT 'active',
  checkpoint INTEGER NOT NULL DEFAULT 0,
  epoch INTEGER NOT NULL DEFAULT 0,
  added_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS spool (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  ts INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  payload TEXT NOT NULL
);
`;

export class SqliteStore implements Store {
  private readonly db: Database.Database;
  /** Held for the life of the store: the OS releases it when the process dies, even by kill -9. */
  private readonly lock: Database.Database | undefined;
  private readonly stmts;
  private records = 0;
  private bytes = 0;

  /** Opens (creating if needed) `<dir>/bridge.db`; `:memory:` for tests. */
  constructor(dirOrMemory: string) {
    let file = dirOrMemory;
    try {
      if (dirOrMemory !== ':memory:') {
        makeDirs(resolve(dirOrMemory));
        file = join(dirOrMemory, 'bridge.db');
        this.lock = lockStateDir(dirOrMemory);
      }
      this.db = new Database(file);
    } catch (err) {
      throw new StoreOpenError(`cannot open the state database in ${dirOrMemory}: ${(err as Error).message}`);
    }
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.checkVersion();
    const db = this.db;
    this.stmts = {
      sessions: db.prepare('SELECT id, spec, source, lifecycle, checkpoint, epoch FROM sessions ORDER BY added_at, id'),
      session: db.prepare('SELECT id, spec, source, lifecycle, checkpoint, epoch FROM sessions WHERE id = ?'),
      upsert: db.prepare(`INSERT INTO sessions (id, spec, source, lifecycle, added_at) VALUES (@id, @spec, @source, 'active', @now)
        ON CONFLICT(id) DO UPDATE SET spec = excluded.spec, source = CASE WHEN sessions.source = 'api' THEN 'api' ELSE excluded.source END, lifecycle = 'active'`),
      lifecycle: db.prepare('UPDATE sessions SET lifecycle = ? WHERE id = ?'),
      insert: db.prepare('INSERT INTO spool (session_id, seq, ts, bytes, payload) VALUES (?, ?, ?, ?, ?)'),
      checkpoint: db.prepare('UPDATE sessions SET checkpoint = ?, epoch = ? WHERE id = ?'),
      read: db.prepare('SELECT id, session_id AS sessionId, seq, payload, bytes FROM spool WHERE id > ? ORDER BY id LIMIT ?'),
      del: db.prepare('DELETE FROM spool WHERE id = ?'),
      totals: db.prepare('SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM spool'),
      oldest: db.prepare('SELECT ts FROM spool ORDER BY id LIMIT 1'),
      probe: db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', ?)"),
    };
    const t = this.stmts.totals.get() as { n: number; b: number };
    this.records = t.n;
    this.bytes = t.b;
  }

  private checkVersion(): void {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
    if (!row) {
      this.db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
    } else if (Number(row.value) > SCHEMA_VERSION) {
      throw new Error(`state database schema version ${row.value} is newer than this bridge understands (${SCHEMA_VERSION}); upgrade the bridge or use another state directory`);
    }
  }

  sessions(): SessionRow[] {
    return (this.stmts.sessions.all() as RawSession[]).map(toRow);
  }

  putSession(spec: SessionSpec, source: SessionSource): SessionRow {
    this.stmts.upsert.run({ id: spec.id, spec: JSON.stringify(spec), source, now: Date.now() });
    return toRow(this.stmts.session.get(spec.id) as RawSession);
  }

  setLifecycle(sessionId: string, lifecycle: SessionLifecycle): void {
    this.stmts.lifecycle.run(lifecycle, sessionId);
  }

  commit = (entries: readonly SpoolEntry[], checkpoints: readonly CheckpointUpdate[]): void => {
    let added = 0;
    this.db.transaction(() => {
      for (const e of entries) {
        this.stmts.insert.run(e.sessionId, e.seq, e.tsMicros, e.bytes, e.payload);
        added += e.bytes;
      }
      for (const c of checkpoints) this.stmts.checkpoint.run(c.checkpoint, c.epoch, c.sessionId);
    })();
    this.records += entries.length;
    this.bytes += added;
  };

  readBatch(afterId: number, limit: number): SpooledRecord[] {
    return this.stmts.read.all(afterId, limit) as SpooledRecord[];
  }

  ack(records: readonly Pick<SpooledRecord, 'id' | 'bytes'>[]): void {
    if (records.length === 0) return;
    let freed = 0;
    let deleted = 0;
    this.db.transaction(() => {
      for (const r of records) {
        // changes is 0 for an id acked twice (a retried request after a split); keep the totals exact.
        if (this.stmts.del.run(r.id).changes > 0) {
          freed += r.bytes;
          deleted++;
        }
      }
    })();
    this.records -= deleted;
    this.bytes -= freed;
  }

  spoolStats(): SpoolStats {
    const oldest = this.records > 0 ? (this.stmts.oldest.get() as { ts: number } | undefined) : undefined;
    return { records: this.records, bytes: this.bytes, oldestTsMicros: oldest ? oldest.ts : null };
  }

  spoolBytes(): number {
    return this.bytes;
  }

  probeWritable(): void {
    this.stmts.probe.run(String(Date.now()));
  }

  close(): void {
    if (this.db.open) this.db.close();
    if (this.lock?.open) this.lock.close();
  }
}

/**
 * Two bridges on one state directory (overlapping pods in a rolling update, a second `run` by hand)
 * would deliver the same spool twice and overwrite each other's checkpoints. An open exclusive
 * transaction on a small lock database holds an OS file lock for as long as this process lives.
 */
function lockStateDir(dir: string): Database.Database {
  const lock = new Database(join(dir, 'bridge.lock'), { timeout: 0 });
  try {
    lock.pragma('journal_mode = DELETE');
    lock.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER)');
    lock.exec('BEGIN EXCLUSIVE');
    lock.prepare('DELETE FROM owner').run();
    lock.prepare('INSERT INTO owner (pid) VALUES (?)').run(process.pid);
    return lock;
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new StoreOpenError(`the state directory ${dir} is in use by another bridge process; two bridges must not share one`);
    }
    throw err;
  }
}

interface RawSession { id: string; spec: string; source: SessionSource; lifecycle: SessionLifecycle; checkpoint: number; epoch: number }

function toRow(r: RawSession): SessionRow {
  return { spec: JSON.parse(r.spec) as SessionSpec, source: r.source, lifecycle: r.lifecycle, checkpoint: r.checkpoint, epoch: r.epoch };
}
