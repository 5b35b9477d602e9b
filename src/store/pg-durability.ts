// Whether the shared store keeps what it acknowledges. The bridge acts on its commits: it drops
// from memory what a written checkpoint covers, and reads a claimed session on from its stored
// position. A PostgreSQL that answers a commit before its log is written (`synchronous_commit =
// off`) forgets the last few hundred milliseconds of them when it crashes or is restarted with
// `-m immediate`, and replicas then act on claims and checkpoints that are gone: records can go
// missing. The replicas' immediate-restart test lost 3 to 19 records of a session in about one run
// of six under CPU load with it off, in none of 20 with it on. Said at start and by `check`; the
// setting is the database's to change (for the bridge's database or role alone, if other
// applications want it off). (`fsync = off` loses more, but only when the database's machine
// itself goes down; it is a server-wide choice docs/operations.md names beside this one.)
import type pg from 'pg';

/** What an operator should be told about the `synchronous_commit` the bridge's connections get; undefined when commits are durable. */
export function durabilityWarning(synchronousCommit: string): string | undefined {
  if (synchronousCommit !== 'off') return undefined;
  return (
    "the shared store's PostgreSQL runs with synchronous_commit = off: a crash or an immediate restart of the " +
    'database loses commits it already acknowledged (checkpoints, claims, handovers), and records read past them ' +
    "can go missing; turn it on for the bridge's database or role (ALTER DATABASE … SET synchronous_commit = on)"
  );
}

/** `synchronous_commit` as the bridge's own connections see it (its database's and role's settings included). */
export async function readSynchronousCommit(
  db: Pick<pg.ClientBase, 'query'> | Pick<pg.Pool, 'query'>,
): Promise<string> {
  const r = await db.query<{ sc: string }>("SELECT current_setting('synchronous_commit') AS sc");
  return r.rows[0]!.sc;
}
