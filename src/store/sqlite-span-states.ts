// A session's open span state in the SQLite store: a table of its own (`span_states`), written only
// when the state changed, compressed, and migrated from the `span_state` column of the sessions
// row that held it before.
//
// The rows are ordered by the session's capture phase (traces/capture-phase.ts) before its id: the
// sessions of one phase are captured together, so a checkpoint write rewrites the few pages that
// hold their states side by side instead of every page of the table (each page SQLite writes
// whole to the WAL and again to the database: 4 KiB, or 64 KiB with `spool.mode: always`).
//
// The store reads it joined to the sessions row (sqlite-store.ts), and writes it in the same
// transaction as the checkpoint it belongs to: a state is never ahead of, or behind, its checkpoint.
//
// Which sessions have a stored state is also known in memory (one process owns the file: the state
// lock), so a checkpoint without a state deletes nothing when there is nothing to delete: with
// traces off that was a DELETE per session per checkpoint write, a thousand a second in the heavy
// mix. The set may name a session whose row is gone, never miss one that has a row: a deletion
// leaves it only once its transaction committed (settle).
import type Database from 'better-sqlite3';
import { capturePhase } from '../traces/capture-phase.js';

/**
 * The table (sqlite-schema.ts). `phase` defaults to 0 and `session_id` is unique on its own so that
 * an older bridge, which writes (session_id, state) and looks rows up by session, still works on it;
 * the rows it adds are put in their phase when this bridge opens the file again.
 */
export const SPAN_STATES_TABLE = `CREATE TABLE IF NOT EXISTS span_states (
  phase INTEGER NOT NULL DEFAULT 0,
  session_id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  PRIMARY KEY (phase, session_id)
) WITHOUT ROWID;`;

/** The span state's writes, prepared once on the store's database. */
export interface SqliteSpanStates {
  /** Stores `state` (packSpans) for the session; a state equal to the stored one rewrites nothing. */
  write(sessionId: string, state: Buffer): void;
  /** Forgets the session's state: a checkpoint written without one. */
  drop(sessionId: string): void;
  /** Forgets the session's state unless it is active (store.ts dropSpanState). */
  dropIfInactive(sessionId: string): void;
  /** Drops the states of sessions no longer in the sessions table (after pruning). */
  dropOrphans(): void;
  /** After the transaction of the drops since the last call: `committed` false when it rolled back. */
  settle(committed: boolean): void;
}

export function prepareSpanStates(db: Database.Database): SqliteSpanStates {
  // Written only when it changed: an idle session's checkpoint moves without rewriting its state.
  // The phase is never set by an update: SQLite makes an update that sets a key column a delete and
  // an insert, which rewrote the unique index and the row's neighbouring pages at every write.
  const write = db.prepare(
    'INSERT INTO span_states (phase, session_id, state) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET state = excluded.state WHERE state IS NOT excluded.state',
  );
  const drop = db.prepare('DELETE FROM span_states WHERE session_id = ?');
  const dropIfInactive = db.prepare(
    "DELETE FROM span_states WHERE session_id = @id AND NOT EXISTS (SELECT 1 FROM sessions WHERE id = @id AND lifecycle = 'active')",
  );
  const stored = () => new Set(db.prepare('SELECT session_id FROM span_states').pluck().all() as string[]);
  let has = stored();
  /** Deleted in the transaction under way: they leave `has` once it commits. */
  const gone = new Set<string>();
  return {
    write: (sessionId, state) => {
      gone.delete(sessionId);
      has.add(sessionId);
      write.run(capturePhase(sessionId), sessionId, state);
    },
    drop: (sessionId) => {
      if (!has.has(sessionId)) return;
      drop.run(sessionId);
      gone.add(sessionId);
    },
    dropIfInactive: (id) => {
      if (has.has(id) && dropIfInactive.run({ id }).changes > 0) gone.add(id);
    },
    dropOrphans: () => {
      db.exec('DELETE FROM span_states WHERE session_id NOT IN (SELECT id FROM sessions)');
      has = stored();
    },
    settle: (committed) => {
      if (committed) for (const id of gone) has.delete(id);
      gone.clear();
    },
  };
}

/**
 * The span state moved to a table of its own: in the sessions row, every checkpoint move rewrote
 * it (overflow pages included) even when the state had not changed. The column stays, empty, so a
 * file opened again by an older bridge still reads (its sessions then start with no open span).
 * Then the table was ordered by session id alone; it is rebuilt in phase order (above), and an older
 * bridge still reads and writes it. `columns` are the sessions table's columns before this migration step.
 */
export function migrateSpanStates(db: Database.Database, columns: readonly string[]): void {
  // Files from before traces kept no span state: their sessions start with no open span.
  if (!columns.includes('span_state')) db.exec('ALTER TABLE sessions ADD COLUMN span_state TEXT');
  db.function('capture_phase', { deterministic: true }, (id) => capturePhase(String(id)));
  const phased = (db.prepare('PRAGMA table_info(span_states)').all() as Array<{ name: string }>).some(
    (c) => c.name === 'phase',
  );
  db.transaction(() => {
    // The table before phases: ordered by session id alone. Rebuilt with every row in its phase.
    if (!phased) {
      db.exec('ALTER TABLE span_states RENAME TO span_states_by_id');
      db.exec(SPAN_STATES_TABLE);
      db.exec(`INSERT INTO span_states (phase, session_id, state)
        SELECT capture_phase(session_id), session_id, state FROM span_states_by_id`);
      db.exec('DROP TABLE span_states_by_id');
    }
    // Rows an older bridge wrote since (in phase 0) go to their phase.
    db.exec('UPDATE span_states SET phase = capture_phase(session_id) WHERE phase <> capture_phase(session_id)');
    db.exec(`INSERT OR REPLACE INTO span_states (phase, session_id, state)
      SELECT capture_phase(id), id, span_state FROM sessions WHERE span_state IS NOT NULL`);
    db.exec('UPDATE sessions SET span_state = NULL WHERE span_state IS NOT NULL');
  })();
}

// node:zlib (about 2 MiB of RSS on Node 24) only once a span state is stored or read: traces are
// off by default, and a sidecar should not pay for a module it never uses. Kept once taken:
// getBuiltinModule costs about 0.3 µs a call, and a state is packed per session per checkpoint.
let zlibModule: typeof import('node:zlib') | undefined;
function zlib(): typeof import('node:zlib') {
  return (zlibModule ??= process.getBuiltinModule('node:zlib'));
}

/**
 * The span state is JSON of a few KiB a session, written with most checkpoint moves: compressed
 * (raw deflate, fastest level) it takes a fraction of the pages, and so of the WAL and checkpoint
 * writes, for some µs of CPU. PostgreSQL compresses it itself (TOAST).
 */
export function packSpans(text: string): Buffer {
  return zlib().deflateRawSync(text, { level: 1 });
}

/**
 * The state as stored: compressed (packSpans), or text as a file from before compression holds it.
 * A state that does not inflate (a corrupt page, a row edited by hand) is undefined, the session's
 * spans start afresh, and `unreadable` says why: spans are secondary to the records, and a throw
 * here would fail every start of the bridge over them.
 */
export function unpackSpans(stored: Buffer | string, unreadable: (error: string) => void): string | undefined {
  if (typeof stored === 'string') return stored;
  try {
    return zlib().inflateRawSync(stored).toString('utf8');
  } catch (err) {
    unreadable((err as Error).message);
    return undefined;
  }
}
