// Which replica sends the spans a finished session of the shared store still owes
// (session/finished-session-spans.ts says what they are). A row of bridge_span_states whose session
// ended or was removed holds them, and its `sender` column names the one replica responsible for
// them. The clock is the replicas' own lease (bridge_replicas, cluster/lease.ts): a sender counts
// while its lease is live, so a dead or stalled one loses the row when its lease runs out, with no
// second timer to keep.
//
//   owed, nobody's  ──claim──▶ owed, sender = R ──R's spans all settled──▶ dropped (by R)
//        ▲                          │
//        └── R's lease ran out ─────┘  (kill -9, a stall, a clean stop: R's lease row is deleted)
//
// - A claim is one statement: the rows it takes are locked (SKIP LOCKED, so replicas claiming at
//   the same moment never wait for one another nor take the same row) and get sender = R; only a
//   replica whose own lease is live claims (one that has not renewed yet would look dead to the others).
// - Claimable: the session is not active; the row has no sender, or one whose lease ran out, or R
//   itself for a row R does not hold in memory (R's previous incarnation, or a send whose drop failed);
//   and the session itself has no live owner but R: an owner still finishing it (its tap closes the
//   open spans with what it read, and writes them) releases it once its spool is delivered.
// - The reader of a session that finishes takes the row as its sender in the statement that writes
//   the end (pg-sessions.ts setLifecycle) and drops it once the spans its tap offered settled
//   (daemon/lifecycle-recorder.ts): no other replica sends them meanwhile, and it never claims what
//   it is finishing (`holding`). Dying or stopping first, it leaves the row to the next claimer.
// - A new state written for the session (it was followed again and finished again) clears the sender
//   (pg-spool-writes.ts): it is nobody's to send yet. R's drop leaves a row another replica holds
//   (it took the row over while R stalled: it sends and drops it). What R's drop may still take is
//   a state written anew and not yet claimed while R's spans of the previous one were out: a session
//   followed again and finished again within that time.
// - At least once: R's spans are offered before the row is dropped, so R dying in between leaves the
//   row to the next claimer (sent twice, never zero times). A stalled R that resumes after another
//   took the row sends its copy too: once more per lease that ran out while the spans were out.
import type pg from 'pg';
import { toRow, type RawSession } from './pg-sessions.js';
import type { SessionRow } from './store.js';

/**
 * Takes the finished sessions' owed spans this replica may send (above); `holding`: the ids it is
 * sending already. Returns their rows, span state included.
 */
export async function claimOwedSpans(
  db: pg.Pool,
  replicaId: string,
  holding: readonly string[],
): Promise<SessionRow[]> {
  const r = await db.query<RawSession>(
    `WITH live AS (SELECT id FROM bridge_replicas WHERE lease_until > now()),
     free AS (
       SELECT t.session_id FROM bridge_span_states t JOIN bridge_sessions s ON s.id = t.session_id
       WHERE s.lifecycle <> 'active'
         AND EXISTS (SELECT 1 FROM live WHERE live.id = $1)
         AND (t.sender IS NULL OR t.sender NOT IN (SELECT id FROM live) OR (t.sender = $1 AND t.session_id <> ALL($2::text[])))
         AND (s.owner IS NULL OR s.owner = $1 OR s.owner NOT IN (SELECT id FROM live))
       FOR UPDATE OF t, s SKIP LOCKED)
     UPDATE bridge_span_states t SET sender = $1 FROM free, bridge_sessions s
     WHERE t.session_id = free.session_id AND s.id = t.session_id
     RETURNING s.id, s.spec, s.source, s.lifecycle, s.checkpoint, s.epoch, s.source_id, coalesce(s.span_state, t.state) AS span_state`,
    [replicaId, holding],
  );
  return r.rows.map(toRow);
}
