// The session rows of the shared store (bridge_sessions): specs, lifecycles and checkpoints as every
// replica reads them. Who owns a row is pg-ownership.ts's; what the owner writes, pg-spool-writes.ts's.
import type pg from 'pg';
import type { SessionSpec } from '../config/schema.js';
import type { SessionLifecycle, SessionRow, SessionSource } from './store.js';

// The span state lives in a table of its own (pg-schema.ts); read here beside the row. The old column
// is left empty: a replica of an older bridge still finds it. While such a replica runs beside this
// one it writes its states there, and this bridge empties the column with every checkpoint it
// writes (pg-spool-writes.ts): a state in the column is then newer than the table's, and wins.
export const SESSION_COLUMNS =
  'id, spec, source, lifecycle, checkpoint, epoch, source_id, coalesce(span_state, (SELECT t.state FROM bridge_span_states t WHERE t.session_id = id)) AS span_state';

/** A session row as the driver returns SESSION_COLUMNS. */
export interface RawSession {
  id: string;
  spec: string;
  source: SessionSource;
  lifecycle: SessionLifecycle;
  checkpoint: string;
  epoch: number;
  source_id: string | null;
  span_state: string | null;
}

export function toRow(r: RawSession): SessionRow {
  const row: SessionRow = {
    spec: JSON.parse(r.spec) as SessionSpec,
    source: r.source,
    lifecycle: r.lifecycle,
    checkpoint: Number(r.checkpoint),
    epoch: r.epoch,
  };
  if (r.source_id !== null && r.source_id !== undefined) row.sourceId = r.source_id;
  if (r.span_state !== null && r.span_state !== undefined) row.spans = r.span_state;
  return row;
}

export async function listSessions(db: pg.Pool): Promise<SessionRow[]> {
  const r = await db.query<RawSession>(`SELECT ${SESSION_COLUMNS} FROM bridge_sessions ORDER BY added_order`);
  return r.rows.map(toRow);
}

/** Inserts a session or replaces its spec; a re-added session becomes active again, keeping its checkpoint. */
export async function putSession(db: pg.Pool, spec: SessionSpec, source: SessionSource): Promise<SessionRow> {
  const r = await db.query<RawSession>(
    `INSERT INTO bridge_sessions (id, spec, source) VALUES ($1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET spec = excluded.spec, lifecycle = 'active', ended_at = NULL, spec_rev = bridge_sessions.spec_rev + 1,
       source = CASE WHEN bridge_sessions.source = 'api' THEN 'api' ELSE excluded.source END
     RETURNING ${SESSION_COLUMNS}`,
    [spec.id, JSON.stringify(spec), source],
  );
  return toRow(r.rows[0]!);
}

/** Inserts the sessions the store does not know (in any lifecycle); returns the rows inserted. */
export async function addSessions(
  db: pg.Pool,
  specs: readonly SessionSpec[],
  source: SessionSource,
): Promise<SessionRow[]> {
  if (specs.length === 0) return [];
  // One statement: replicas listing the same session at once insert it once; the owner claims it.
  const r = await db.query<RawSession>(
    `INSERT INTO bridge_sessions (id, spec, source)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
     ON CONFLICT (id) DO NOTHING
     RETURNING ${SESSION_COLUMNS}`,
    [specs.map((s) => s.id), specs.map((s) => JSON.stringify(s)), specs.map(() => source)],
  );
  return r.rows.map(toRow);
}

/** The active sessions' rows (GET /v1/sessions), through the index of active rows. */
export async function listActiveSessions(db: pg.Pool): Promise<SessionRow[]> {
  const r = await db.query<RawSession>(
    `SELECT ${SESSION_COLUMNS} FROM bridge_sessions WHERE lifecycle = 'active' ORDER BY added_order`,
  );
  return r.rows.map(toRow);
}

/** The current specs of some sessions (the owner re-reads them after a PUT elsewhere). */
export async function sessionSpecs(db: pg.Pool, ids: readonly string[]): Promise<SessionRow[]> {
  const r = await db.query<RawSession>(`SELECT ${SESSION_COLUMNS} FROM bridge_sessions WHERE id = ANY($1::text[])`, [
    ids,
  ]);
  return r.rows.map(toRow);
}

/**
 * `sender`: the replica that offered the finished session's spans as it ended and drops the state
 * once they settle (store.ts setLifecycle `sending`): it holds the state's claim meanwhile
 * (pg-owed-spans.ts), in the same statement, so no other replica claims it in between.
 */
export async function setLifecycle(
  db: pg.Pool,
  sessionId: string,
  lifecycle: SessionLifecycle,
  sender: string | null = null,
): Promise<void> {
  // The span state stays, removed or ended: it lists the spans the session still owes until they
  // are sent (store.ts dropSpanState).
  await db.query(
    `WITH claim AS (UPDATE bridge_span_states SET sender = $3 WHERE session_id = $2 AND $3::text IS NOT NULL AND $1 <> 'active')
     UPDATE bridge_sessions SET lifecycle = $1, ended_at = CASE WHEN $1 = 'active' THEN NULL ELSE coalesce(ended_at, now()) END
     WHERE id = $2`,
    [lifecycle, sessionId, sender],
  );
}

/**
 * Forgets the span state of a session that is not active (store.ts dropSpanState), unless another
 * replica than `sender` holds it now (pg-owed-spans.ts): that one sends it and drops it.
 */
export async function dropSpanState(db: pg.Pool, sessionId: string, sender: string): Promise<void> {
  // The old column too: a replica of the previous version may have left the state there.
  await db.query(
    `WITH col AS (UPDATE bridge_sessions SET span_state = NULL WHERE id = $1 AND lifecycle <> 'active' AND span_state IS NOT NULL)
     DELETE FROM bridge_span_states t WHERE t.session_id = $1 AND (t.sender IS NULL OR t.sender = $2)
       AND NOT EXISTS (SELECT 1 FROM bridge_sessions s WHERE s.id = $1 AND s.lifecycle = 'active')`,
    [sessionId, sender],
  );
}

/**
 * Deletes the rows of sessions that ended or were removed longer ago than `afterMs` and have nothing
 * spooled, as the embedded store does (sqlite-store.ts): PUT churn must not grow the table that every
 * replica reads. Any replica may do it at its start; the statement is idempotent.
 */
export async function pruneFinished(db: pg.Pool, afterMs: number): Promise<number> {
  const r = await db.query(
    `WITH gone AS (DELETE FROM bridge_sessions s WHERE s.lifecycle <> 'active' AND s.ended_at < now() - make_interval(secs => $1::double precision / 1000)
       AND NOT EXISTS (SELECT 1 FROM bridge_segments g WHERE g.session_id = s.id) RETURNING s.id),
     spans AS (DELETE FROM bridge_span_states t USING gone WHERE t.session_id = gone.id)
     SELECT count(*)::int AS n FROM gone`,
    [afterMs],
  );
  return (r.rows[0] as { n: number }).n;
}
