// What an owner writes to and reads from the shared store's spool: segments and checkpoints, fenced
// on ownership, and the backlog read back.
//
// Fencing: every write of an owner first locks its session rows FOR SHARE where owner and epoch still
// match what this process claimed them at (pg-ownership.ts); a missing row means another replica
// claimed the session (our lease ran out: GC pause, SIGSTOP, partition), and nothing of the write goes
// in: a FencedError names those sessions, which this process then forgets. Checkpoints only move
// forward in (service epoch, seq) order, whoever writes them.
import type pg from 'pg';
import { generationOf, SEGMENT_COLUMNS } from './pg-schema.js';
import type { PgOwnership } from './pg-ownership.js';
import type { NewSegment, Segment } from '../wire/segment-framing.js';
import { FencedError, type CheckpointUpdate } from './store.js';
import { rollBack } from './pg-rollback.js';

const READ_MAX_SEGMENTS = 256;
/** Rows per multi-row INSERT (9 parameters each; PostgreSQL allows 65535 per statement). */
const INSERT_ROWS = 500;
/**
 * The span states of the sessions whose checkpoint moved (`moved(id, spans)`), as CTEs: written
 * only when changed (an unchanged state makes no new tuple), dropped when the update carries none.
 * A changed state is nobody's to send yet (its `sender` cleared: pg-owed-spans.ts).
 * The moves also empty the sessions row's old `span_state` column: what a replica of the previous
 * version writes there is then always newer than the table's state (pg-sessions.ts reads it first).
 */
const SPAN_WRITES = `written AS (INSERT INTO bridge_span_states (session_id, state) SELECT id, spans FROM moved WHERE spans IS NOT NULL
       ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, sender = NULL WHERE bridge_span_states.state IS DISTINCT FROM excluded.state),
     dropped AS (DELETE FROM bridge_span_states t USING moved WHERE t.session_id = moved.id AND moved.spans IS NULL)`;

/** Refuses at once a write of sessions this process does not own (any more). */
function ownedOrFenced(owners: PgOwnership, ids: Iterable<string>): string[] {
  const want = [...ids];
  const notOwned = want.filter((id) => !owners.sessions.has(id));
  if (notOwned.length > 0) throw new FencedError(notOwned);
  return want;
}

/** The sessions of `want` the database no longer holds for us: forgotten, and refused. */
function fenced(owners: PgOwnership, want: readonly string[], held: ReadonlyArray<{ id: string }>): FencedError {
  const ok = new Set(held.map((r) => r.id));
  const lost = want.filter((id) => !ok.has(id));
  for (const id of lost) owners.forget(id);
  return new FencedError(lost);
}

/**
 * Spools segments and moves checkpoints in one transaction, fenced; returns the segments' ids in
 * order. Checkpoints alone take one statement (writeCheckpoints).
 */
export async function commitSpool(
  db: pg.Pool,
  owners: PgOwnership,
  segments: readonly NewSegment[],
  checkpoints: readonly CheckpointUpdate[],
): Promise<number[]> {
  const ids = new Set<string>();
  for (const s of segments) ids.add(s.sessionId);
  for (const c of checkpoints) ids.add(c.sessionId);
  const want = ownedOrFenced(owners, ids);
  if (want.length === 0) return [];
  if (segments.length === 0) {
    await writeCheckpoints(db, owners, checkpoints);
    return [];
  }
  const c = await db.connect();
  let broken: Error | undefined;
  try {
    await c.query('BEGIN');
    const held = await c.query<{ id: string }>(
      `SELECT s.id FROM bridge_sessions s, unnest($1::text[], $2::bigint[]) AS o(id, ep)
       WHERE s.id = o.id AND s.owner = $3 AND s.lease_epoch = o.ep FOR SHARE OF s`,
      [want, want.map((id) => owners.sessions.get(id)!), owners.replicaId],
    );
    if (held.rows.length !== want.length) {
      await c.query('ROLLBACK');
      throw fenced(owners, want, held.rows);
    }
    const out = await insertSegments(c, segments);
    if (checkpoints.length > 0) {
      // Forward only, in (service epoch, seq) order: a stale writer can never move it back.
      await c.query(
        `WITH o AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::text[], $5::text[]) AS o(id, cp, ep, src, spans)),
         moved AS (
           UPDATE bridge_sessions s SET checkpoint = o.cp, epoch = o.ep, source_id = coalesce(o.src, s.source_id), span_state = NULL
           FROM o WHERE s.id = o.id AND (s.epoch < o.ep OR (s.epoch = o.ep AND s.checkpoint <= o.cp))
           RETURNING s.id, o.spans),
         ${SPAN_WRITES}
         SELECT 1`,
        [
          checkpoints.map((x) => x.sessionId),
          checkpoints.map((x) => x.checkpoint),
          checkpoints.map((x) => x.epoch),
          checkpoints.map((x) => x.sourceId ?? null),
          checkpoints.map((x) => x.spans?.() ?? null),
        ],
      );
    }
    await c.query('COMMIT');
    return out;
  } catch (err) {
    if (!(err instanceof FencedError)) broken = await rollBack(c);
    throw err;
  } finally {
    c.release(broken);
  }
}

/** Inserts segments with fresh ids from the shared sequence, in their order; returns the ids. */
async function insertSegments(c: pg.PoolClient, segments: readonly NewSegment[]): Promise<number[]> {
  const out: number[] = [];
  const next = await c.query<{ id: string }>("SELECT nextval('bridge_segment_id') AS id FROM generate_series(1, $1)", [
    segments.length,
  ]);
  for (const r of next.rows) out.push(Number(r.id));
  // One session's nextval calls are increasing; sorted, they follow the segments' order.
  out.sort((a, b) => a - b);
  for (let i = 0; i < segments.length; i += INSERT_ROWS) {
    const chunk = segments.slice(i, i + INSERT_ROWS);
    const params: unknown[] = [];
    const rows: string[] = [];
    chunk.forEach((s, j) => {
      const id = out[i + j]!;
      const b = params.length;
      rows.push(
        `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8}, $${b + 9}, $${b + 10})`,
      );
      params.push(
        id,
        generationOf(id),
        s.sessionId,
        s.firstSeq,
        s.lastSeq,
        s.records,
        s.payload?.length ?? 0,
        s.oldestTsMicros,
        s.payload,
        s.epoch ?? 0,
      );
    });
    await c.query(`INSERT INTO bridge_segments ${SEGMENT_COLUMNS} VALUES ${rows.join(', ')}`, params);
  }
  return out;
}

/**
 * Checkpoints alone (the overflow mode's healthy path, once per interval): one statement, so one
 * round trip and one commit whatever the number of sessions. Fenced as a transaction is: the rows
 * are locked where owner and epoch still match, and unless every one of them is, nothing is updated.
 */
async function writeCheckpoints(
  db: pg.Pool,
  owners: PgOwnership,
  checkpoints: readonly CheckpointUpdate[],
): Promise<void> {
  const want = checkpoints.map((x) => x.sessionId);
  const r = await db.query<{ id: string }>(
    `WITH o AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::text[], $5::bigint[], $7::text[]) AS o(id, cp, ep, src, lease, spans)),
     held AS (SELECT s.id FROM bridge_sessions s JOIN o ON s.id = o.id WHERE s.owner = $6 AND s.lease_epoch = o.lease FOR SHARE OF s),
     moved AS (
       UPDATE bridge_sessions s SET checkpoint = o.cp, epoch = o.ep, source_id = coalesce(o.src, s.source_id), span_state = NULL
       FROM o WHERE s.id = o.id AND (SELECT count(*) FROM held) = cardinality($1::text[])
         AND (s.epoch < o.ep OR (s.epoch = o.ep AND s.checkpoint <= o.cp))
       RETURNING s.id, o.spans),
     ${SPAN_WRITES}
     SELECT id FROM held`,
    [
      want,
      checkpoints.map((x) => x.checkpoint),
      checkpoints.map((x) => x.epoch),
      checkpoints.map((x) => x.sourceId ?? null),
      want.map((id) => owners.sessions.get(id)!),
      owners.replicaId,
      checkpoints.map((x) => x.spans?.() ?? null),
    ],
  );
  if (r.rows.length !== want.length) throw fenced(owners, want, r.rows);
}

/**
 * Segments with afterId < id ≤ upToId of sessions this replica owns, in id order, at most
 * `maxRecords` records and `maxBytes` payload bytes, but at least one segment.
 */
export async function readSegments(
  db: pg.Pool,
  replicaId: string,
  afterId: number,
  upToId: number,
  maxRecords: number,
  maxBytes: number,
): Promise<Segment[]> {
  // Sizes first, payloads only of what fits: a backlog of screenshots is megabytes per segment.
  const heads = await db.query<{ id: string; records: number; bytes: number }>(
    `SELECT g.id, g.records, g.bytes FROM bridge_segments g JOIN bridge_sessions s ON s.id = g.session_id AND s.owner = $3
     WHERE g.id > $1 AND g.id <= $2 ORDER BY g.id LIMIT ${READ_MAX_SEGMENTS}`,
    [afterId, upToId, replicaId],
  );
  let records = 0;
  let bytes = 0;
  const ids: number[] = [];
  for (const h of heads.rows) {
    if (ids.length > 0 && (records + h.records > maxRecords || bytes + h.bytes > maxBytes)) break;
    records += h.records;
    bytes += h.bytes;
    ids.push(Number(h.id));
  }
  if (ids.length === 0) return [];
  const r = await db.query<RawSegment>(
    `SELECT id, session_id, first_seq, last_seq, records, oldest_ts, payload, epoch FROM bridge_segments WHERE id = ANY($1::bigint[]) ORDER BY id`,
    [ids],
  );
  return r.rows.map((x) => ({
    id: Number(x.id),
    sessionId: x.session_id,
    firstSeq: Number(x.first_seq),
    lastSeq: Number(x.last_seq),
    ...(x.epoch !== 0 ? { epoch: x.epoch } : {}),
    records: x.records,
    oldestTsMicros: Number(x.oldest_ts),
    payload: x.payload,
  }));
}

interface RawSegment {
  id: string;
  session_id: string;
  first_seq: string;
  last_seq: string;
  epoch: number;
  records: number;
  oldest_ts: string;
  payload: Buffer;
}

export async function deleteSegments(db: pg.Pool, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('DELETE FROM bridge_segments WHERE id = ANY($1::bigint[])', [ids]);
}

/** Records and bytes spooled for the owned sessions, with one more aggregate (`extra`). */
export async function ownedSpool(
  db: pg.Pool,
  owners: PgOwnership,
  extra: string,
): Promise<{ records: number; bytes: number; m: string | null }> {
  const r = await db.query<{ records: string; bytes: string; m: string | null }>(
    `SELECT coalesce(sum(records), 0) AS records, coalesce(sum(bytes), 0) AS bytes, ${extra} FROM bridge_segments WHERE session_id = ANY($1::text[])`,
    [[...owners.sessions.keys()]],
  );
  const row = r.rows[0]!;
  return { records: Number(row.records), bytes: Number(row.bytes), m: row.m };
}
