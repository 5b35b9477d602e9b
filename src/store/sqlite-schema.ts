// The SQLite state database's shape: the schema, the mark that says the file is the bridge's, and
// the migrations from earlier versions (what store/pg-schema.ts is for the shared store).
//
// The file is marked as the bridge's own (application_id) and carries its schema version, so a
// database of another application, or one from a newer bridge, is refused rather than adopted.
// Schema 1 (one JSON row per record) is migrated on open: its rows become segments in batches, each
// batch one transaction, so a crash mid-migration resumes where it stopped.
import type Database from 'better-sqlite3';
import type { NewSegment } from '../wire/segment-framing.js';
import { migrateSpanStates, SPAN_STATES_TABLE } from './sqlite-span-states.js';

const SCHEMA_VERSION = 2;
/** "BTB1": marks the file as a browser-telemetry-bridge state database. */
const APPLICATION_ID = 0x42544231;
const MIGRATE_BATCH_ROWS = 5000;

/** The state directory or database cannot be used; the message is one line for the operator. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

/** What a migration needs from the caller. */
export interface MigrateOptions {
  /** The clock for ended_at: dates sessions finished before the column existed, and pruning (tests); Date.now by default. */
  now?: () => number;
  /** Turns a schema-1 spool row (the record as JSON) into a framed record; needed only to migrate. */
  migrateRecord?: (json: string) => Buffer;
  /** Told how a schema-1 spool was migrated. */
  onMigrated?: (report: { records: number; segments: number; unreadable: number }) => void;
}

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  spec TEXT NOT NULL,
  source TEXT NOT NULL,
  lifecycle TEXT NOT NULL DEFAULT 'active',
  checkpoint INTEGER NOT NULL DEFAULT 0,
  epoch INTEGER NOT NULL DEFAULT 0,
  added_at INTEGER NOT NULL,
  source_id TEXT,
  ended_at INTEGER,
  span_state TEXT
);
${SPAN_STATES_TABLE}
CREATE TABLE IF NOT EXISTS spool_segments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  first_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  records INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  oldest_ts INTEGER NOT NULL,
  payload BLOB NOT NULL,
  epoch INTEGER NOT NULL DEFAULT 0
);
`;

/**
 * Refuses a file that is not the bridge's: a foreign application id, or tables without the
 * bridge's meta. A fresh file is marked; a schema-1 file (no id yet, but the bridge's tables) too.
 */
export function adoptDatabase(db: Database.Database, file: string): void {
  const appId = db.pragma('application_id', { simple: true }) as number;
  const tables = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
  ).map((t) => t.name);
  if (appId !== 0 && appId !== APPLICATION_ID) {
    throw new StoreOpenError(
      `${file} belongs to another application (application_id ${appId}); refusing to use it as the bridge's state: point BRIDGE_STATE_DIR at the bridge's own directory`,
    );
  }
  if (appId === 0 && tables.length > 0) {
    const version = tables.includes('meta')
      ? (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined)
      : undefined;
    if (!version || !tables.includes('sessions')) {
      throw new StoreOpenError(
        `${file} is a SQLite database of another application (tables: ${tables.slice(0, 5).join(', ')}); refusing to use it as the bridge's state`,
      );
    }
  }
  if (appId === 0) db.pragma(`application_id = ${APPLICATION_ID}`);
}

export function migrateSqlite(db: Database.Database, opts: MigrateOptions): void {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  const version = row ? Number(row.value) : SCHEMA_VERSION;
  if (version > SCHEMA_VERSION) {
    throw new StoreOpenError(
      `state database schema version ${version} is newer than this bridge understands (${SCHEMA_VERSION}); upgrade the bridge or use another state directory`,
    );
  }
  if (version < 2) migrateFromV1(db, opts);
  const columns = (db.prepare('PRAGMA table_info(sessions)').all() as Array<{ name: string }>).map((c) => c.name);
  if (!columns.includes('source_id')) db.exec('ALTER TABLE sessions ADD COLUMN source_id TEXT');
  if (!columns.includes('ended_at')) {
    // Sessions that finished before the column existed are dated from now: pruned a retention later.
    db.exec('ALTER TABLE sessions ADD COLUMN ended_at INTEGER');
    db.prepare("UPDATE sessions SET ended_at = ? WHERE lifecycle != 'active'").run((opts.now ?? Date.now)());
  }
  migrateSpanStates(db, columns);
  // The epoch of a segment's last seq (the session's status after a service restart): 0 for what an
  // older bridge spooled, which is right unless its service had restarted under it.
  const segmentColumns = (db.prepare('PRAGMA table_info(spool_segments)').all() as Array<{ name: string }>).map(
    (c) => c.name,
  );
  if (!segmentColumns.includes('epoch'))
    db.exec('ALTER TABLE spool_segments ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0');
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SCHEMA_VERSION));
}

/** Schema 1 kept one JSON row per record in `spool`: each run of one session's rows becomes a segment. */
function migrateFromV1(db: Database.Database, opts: MigrateOptions): void {
  const hasOld = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'spool'").get();
  if (!hasOld) return;
  if (!opts.migrateRecord)
    throw new StoreOpenError('the state database holds a schema-1 spool and no record converter was given');
  const convert = opts.migrateRecord;
  const read = db.prepare('SELECT id, session_id AS sessionId, seq, ts, payload FROM spool ORDER BY id LIMIT ?');
  const delUpTo = db.prepare('DELETE FROM spool WHERE id <= ?');
  const insert = db.prepare(
    'INSERT INTO spool_segments (session_id, first_seq, last_seq, records, bytes, oldest_ts, payload) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const report = { records: 0, segments: 0, unreadable: 0 };
  const step = db.transaction(
    (rows: Array<{ id: number; sessionId: string; seq: number; ts: number; payload: string }>) => {
      let run: { seg: NewSegment; parts: Buffer[] } | undefined;
      const emit = (): void => {
        if (!run) return;
        const payload = Buffer.concat(run.parts);
        insert.run(
          run.seg.sessionId,
          run.seg.firstSeq,
          run.seg.lastSeq,
          run.seg.records,
          payload.length,
          run.seg.oldestTsMicros,
          payload,
        );
        report.segments++;
        run = undefined;
      };
      for (const r of rows) {
        let framed: Buffer;
        try {
          framed = convert(r.payload);
        } catch {
          report.unreadable++;
          continue;
        }
        if (run && (run.seg.sessionId !== r.sessionId || run.seg.records >= 1000)) emit();
        if (!run)
          run = {
            seg: {
              sessionId: r.sessionId,
              payload: Buffer.alloc(0),
              records: 0,
              firstSeq: r.seq,
              lastSeq: r.seq,
              oldestTsMicros: r.ts,
            },
            parts: [],
          };
        run.parts.push(framed);
        run.seg.records++;
        run.seg.lastSeq = r.seq;
        if (r.ts < run.seg.oldestTsMicros) run.seg.oldestTsMicros = r.ts;
        report.records++;
      }
      emit();
      delUpTo.run(rows[rows.length - 1]!.id);
    },
  );
  for (;;) {
    const rows = read.all(MIGRATE_BATCH_ROWS) as Array<{
      id: number;
      sessionId: string;
      seq: number;
      ts: number;
      payload: string;
    }>;
    if (rows.length === 0) break;
    step(rows);
  }
  db.exec('DROP TABLE spool');
  opts.onMigrated?.(report);
}
