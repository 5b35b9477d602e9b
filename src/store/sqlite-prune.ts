// The embedded store's retention: the rows of sessions that finished long ago, deleted when the
// store opens and every hour while the bridge runs (daemon/finished-retention.ts).
//
// Every PUT of a fresh id leaves a row that outlives the session: without pruning, a client (or
// years of churn) grows the table, and the start-up reads all of it. A row goes once its session
// ended or was removed before `before` (epoch ms) and nothing of it waits in the spool; its
// checkpoint goes with it (a session PUT again after that starts from `start`, and duplicates carry
// the same log.record.uid), and so does its span state.
import type Database from 'better-sqlite3';
import type { SqliteSpanStates } from './sqlite-span-states.js';

/** Deletes the rows of sessions finished before `before`; returns how many. */
export function deleteFinishedSessions(db: Database.Database, spanStates: SqliteSpanStates, before: number): number {
  const pruned = db
    .prepare(
      `DELETE FROM sessions WHERE lifecycle != 'active' AND ended_at IS NOT NULL AND ended_at < ?
      AND NOT EXISTS (SELECT 1 FROM spool_segments g WHERE g.session_id = sessions.id)`,
    )
    .run(before).changes;
  if (pruned > 0) spanStates.dropOrphans();
  return pruned;
}
