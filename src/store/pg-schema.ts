// The PostgreSQL store's schema, created and migrated by the bridge itself. Replicas starting at
// the same moment serialize on an advisory lock, so exactly one creates or migrates; the others
// find it done. The database is marked as the bridge's (meta.application) and carries its schema
// version: a database of another application, or one from a newer bridge, is refused.
//
// The spool (bridge_segments) is partitioned by a generation number derived from the segment id
// (id >> GEN_SHIFT, modulo GENERATIONS), so a whole generation can be TRUNCATEd once it is drained:
// steady insert + delete then leaves no dead tuples for autovacuum to chase (pg-spool-rotation.ts).
import type pg from 'pg';
import { rollBack } from './pg-rollback.js';

export const PG_SCHEMA_VERSION = 2;
export const PG_APPLICATION = 'browser-telemetry-bridge';
/** Segment ids per generation: 2^14 commits of one replica-second each is hours at 1 commit/s… and minutes under load. */
export const GEN_SHIFT = 14;
export const GENERATIONS = 8;
/** The columns of a segment row, in the order the spool's inserts and a claim's renumbering write them. */
export const SEGMENT_COLUMNS = '(id, gen, session_id, first_seq, last_seq, records, bytes, oldest_ts, payload, epoch)';
/** Arbitrary constant for pg_advisory_xact_lock: "bridge schema". */
const SCHEMA_LOCK = 0x42544231;

/** The database cannot be used as the bridge's store; the message is one line for the operator. */
export class PgSchemaError extends Error {
  override name = 'PgSchemaError';
}

const partitions = Array.from(
  { length: GENERATIONS },
  (_, g) => `CREATE TABLE IF NOT EXISTS bridge_segments_g${g} PARTITION OF bridge_segments FOR VALUES IN (${g});`,
).join('\n');

const DDL = `
CREATE TABLE IF NOT EXISTS bridge_replicas (
  id text PRIMARY KEY,
  lease_until timestamptz NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  renewed_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS bridge_sessions (
  id text PRIMARY KEY,
  spec text NOT NULL,
  source text NOT NULL,
  lifecycle text NOT NULL DEFAULT 'active',
  checkpoint bigint NOT NULL DEFAULT 0,
  epoch integer NOT NULL DEFAULT 0,
  owner text,
  lease_epoch bigint NOT NULL DEFAULT 0,
  released_at timestamptz,
  spec_rev bigint NOT NULL DEFAULT 0,
  added_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  added_order bigserial,
  source_id text
);
CREATE INDEX IF NOT EXISTS bridge_sessions_owner ON bridge_sessions (owner);
CREATE SEQUENCE IF NOT EXISTS bridge_segment_id;
CREATE TABLE IF NOT EXISTS bridge_segments (
  id bigint NOT NULL,
  gen smallint NOT NULL,
  session_id text NOT NULL,
  first_seq bigint NOT NULL,
  last_seq bigint NOT NULL,
  records integer NOT NULL,
  bytes integer NOT NULL,
  oldest_ts bigint NOT NULL,
  payload bytea NOT NULL,
  epoch integer NOT NULL DEFAULT 0
) PARTITION BY LIST (gen);
${partitions}
CREATE INDEX IF NOT EXISTS bridge_segments_id ON bridge_segments (id);
CREATE INDEX IF NOT EXISTS bridge_segments_session ON bridge_segments (session_id, id);
`;

/**
 * Version 2: discovery's one-row state. `claimed_at` spaces the polls of every replica (a claim is a
 * conditional UPDATE on the database clock); `last_success` is when the last successful poll began,
 * so a bridge starting after an outage knows since when to look for sessions deleted unseen.
 */
const DDL_V2 = `
CREATE TABLE IF NOT EXISTS bridge_discovery (
  id smallint PRIMARY KEY CHECK (id = 1),
  claimed_at timestamptz,
  claimed_by text,
  last_success timestamptz
);
INSERT INTO bridge_discovery (id) VALUES (1) ON CONFLICT (id) DO NOTHING;
`;

/** The generation (partition) a segment id lives in. */
export function generationOf(id: number): number {
  return Math.floor(id / 2 ** GEN_SHIFT) % GENERATIONS;
}

/** Creates or migrates the schema; returns the version found before (0 for a fresh database). */
export async function migratePg(db: pg.Pool): Promise<number> {
  const c = await db.connect();
  let broken: Error | undefined;
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await c.query('CREATE TABLE IF NOT EXISTS bridge_meta (key text PRIMARY KEY, value text NOT NULL)');
    const meta = new Map(
      (await c.query<{ key: string; value: string }>('SELECT key, value FROM bridge_meta')).rows.map((r) => [
        r.key,
        r.value,
      ]),
    );
    const app = meta.get('application');
    if (app !== undefined && app !== PG_APPLICATION) {
      throw new PgSchemaError(
        `the database belongs to another application (${app}); refusing to use it as the bridge's store`,
      );
    }
    if (app === undefined) {
      const foreign = (
        await c.query<{ n: string }>(
          "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'bridge\\_%' AND table_name <> 'bridge_meta'",
        )
      ).rows[0]!;
      if (Number(foreign.n) > 0)
        throw new PgSchemaError('the database has bridge_* tables but no bridge schema marker; refusing to adopt them');
    }
    const found = Number(meta.get('schema_version') ?? 0);
    if (found > PG_SCHEMA_VERSION) {
      throw new PgSchemaError(
        `store schema version ${found} is newer than this bridge understands (${PG_SCHEMA_VERSION}); upgrade the bridge`,
      );
    }
    // Each version's steps, guarded by `found`; every step is idempotent.
    if (found < 1) await c.query(DDL);
    if (found < 2) await c.query(DDL_V2);
    // When a session ended or was removed (for pruning, pg-sessions.ts). Added in place rather than as a
    // schema version: a bridge that does not know the column keeps working beside one that does.
    await c.query('ALTER TABLE bridge_sessions ADD COLUMN IF NOT EXISTS ended_at timestamptz');
    // The open spans at the checkpoint (traces on), added in place for the same reason.
    await c.query('ALTER TABLE bridge_sessions ADD COLUMN IF NOT EXISTS span_state text');
    // Then moved to a table of its own: in the sessions row every checkpoint move wrote a new tuple
    // with the whole state (TOASTed) even when it had not changed. The column stays, emptied, so a
    // replica of an older bridge beside this one keeps working (its restored sessions start their spans anew).
    await c.query('CREATE TABLE IF NOT EXISTS bridge_span_states (session_id text PRIMARY KEY, state text NOT NULL)');
    await c.query(
      `WITH moved AS (SELECT id, span_state FROM bridge_sessions WHERE span_state IS NOT NULL FOR UPDATE),
       copied AS (INSERT INTO bridge_span_states (session_id, state) SELECT id, span_state FROM moved
         ON CONFLICT (session_id) DO UPDATE SET state = excluded.state)
       UPDATE bridge_sessions SET span_state = NULL WHERE id IN (SELECT id FROM moved)`,
    );
    // The replica that sends a finished session's owed spans (pg-owed-spans.ts), added in place too:
    // a replica of an older bridge ignores it, and sends them at each of its starts as it always did.
    await c.query('ALTER TABLE bridge_span_states ADD COLUMN IF NOT EXISTS sender text');
    // The epoch of a segment's last seq (a session's status after a service restart), added in place
    // too: an older replica writes and moves segments without it (0, right unless the service restarted).
    await c.query('ALTER TABLE bridge_segments ADD COLUMN IF NOT EXISTS epoch integer NOT NULL DEFAULT 0');
    // The active rows, for the placement loop and GET /v1/sessions (cluster/ownership-view.ts): finished
    // rows stay for the retention and are most of the table under churn. Added in place: an older
    // replica neither needs nor minds it. Built once, inside this transaction: other replicas' writes
    // to the table wait for it (seconds for a million rows, at the first start of this version).
    await c.query(
      "CREATE INDEX IF NOT EXISTS bridge_sessions_active ON bridge_sessions (id) WHERE lifecycle = 'active'",
    );
    await c.query(
      "INSERT INTO bridge_meta (key, value) VALUES ('application', $1), ('schema_version', $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [PG_APPLICATION, String(PG_SCHEMA_VERSION)],
    );
    await c.query('COMMIT');
    return found;
  } catch (err) {
    broken = await rollBack(c);
    throw err;
  } finally {
    c.release(broken);
  }
}

/** Reads the schema version without changing anything (check); null when the database has none. */
export async function readPgSchemaVersion(client: pg.ClientBase): Promise<number | null> {
  const exists = (await client.query("SELECT to_regclass('bridge_meta') IS NOT NULL AS ok")).rows[0] as { ok: boolean };
  if (!exists.ok) return null;
  const row = (await client.query<{ value: string }>("SELECT value FROM bridge_meta WHERE key = 'schema_version'"))
    .rows[0];
  return row ? Number(row.value) : null;
}
