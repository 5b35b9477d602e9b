// `check` against the shared PostgreSQL store: reachable with these credentials, the bridge's
// schema at a version this bridge understands, and the lease table sane (who is live, which
// sessions have no live owner). Read-only: nothing is created or migrated by a check.
import pg from 'pg';
import type { StoreConfig } from '../config/schema.js';
import { displayStoreUrl } from '../mapping/display-url.js';
import { durabilityWarning, readSynchronousCommit } from '../store/pg-durability.js';
import { PG_APPLICATION, PG_SCHEMA_VERSION, readPgSchemaVersion } from '../store/pg-schema.js';
import type { CheckItem } from './checklist.js';

const TIMEOUT_MS = 5000;

export async function probeSharedStore(store: Extract<StoreConfig, { kind: 'postgres' }>): Promise<CheckItem> {
  const label = `store ${displayStoreUrl(store.url)}`;
  const client = new pg.Client({
    connectionString: store.url,
    ...(store.password !== undefined ? { password: store.password } : {}),
    connectionTimeoutMillis: TIMEOUT_MS,
    query_timeout: TIMEOUT_MS,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    return { label, status: 'fail', detail: `cannot connect: ${oneLine(err)}` };
  }
  try {
    const lax = durabilityWarning(await readSynchronousCommit(client));
    const durability: NonNullable<CheckItem['notes']> = lax === undefined ? [] : [{ level: 'warn', text: lax }];
    const version = await readPgSchemaVersion(client);
    if (version === null)
      return {
        label,
        status: 'ok',
        detail: 'reachable; no bridge schema yet (the first replica to start creates it)',
        ...(durability.length > 0 ? { notes: durability } : {}),
      };
    const app = (await client.query<{ value: string }>("SELECT value FROM bridge_meta WHERE key = 'application'"))
      .rows[0]?.value;
    if (app !== undefined && app !== PG_APPLICATION)
      return { label, status: 'fail', detail: `the database belongs to another application (${app})` };
    if (version > PG_SCHEMA_VERSION)
      return {
        label,
        status: 'fail',
        detail: `schema version ${version} is newer than this bridge understands (${PG_SCHEMA_VERSION}); upgrade the bridge`,
      };
    const r = (
      await client.query<{ live: string; expired: string; active: string; orphans: string; future: string }>(`
      SELECT (SELECT count(*) FROM bridge_replicas WHERE lease_until > now()) AS live,
             (SELECT count(*) FROM bridge_replicas WHERE lease_until <= now()) AS expired,
             (SELECT count(*) FROM bridge_sessions WHERE lifecycle = 'active') AS active,
             (SELECT count(*) FROM bridge_sessions s WHERE s.lifecycle = 'active'
                AND NOT EXISTS (SELECT 1 FROM bridge_replicas r WHERE r.id = s.owner AND r.lease_until > now())) AS orphans,
             (SELECT count(*) FROM bridge_replicas WHERE lease_until > now() + interval '1 hour') AS future`)
    ).rows[0]!;
    const notes: CheckItem['notes'] = durability;
    if (Number(r.future) > 0)
      notes.push({
        level: 'warn',
        text: `${r.future} replica lease(s) run more than an hour ahead: a replica was configured with a very long lease`,
      });
    if (Number(r.live) > 0 && Number(r.orphans) > 0)
      notes.push({
        level: 'info',
        text: `${r.orphans} active session(s) have no live owner right now (being claimed, or a replica just died)`,
      });
    return {
      label,
      status: 'ok',
      detail: `schema ${version}; ${r.live} live replica(s), ${r.expired} expired; ${r.active} active session(s)`,
      ...(notes.length > 0 ? { notes } : {}),
    };
  } catch (err) {
    return { label, status: 'fail', detail: `reachable, but the bridge's tables cannot be read: ${oneLine(err)}` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

function oneLine(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e.code === 'ECONNREFUSED') return 'connection refused (nothing listening there?)';
  return (e.message ?? String(err)).split('\n')[0]!;
}
