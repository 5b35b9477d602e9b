// Opens the store the configuration names: the shared PostgreSQL store (several replicas), or the
// embedded SQLite store in the state directory. Apart from the composition root (bridge.ts) because
// how a store is opened, and what an operator is told when it cannot be, is a concern of its own.
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/schema.js';
import { displayStoreUrl } from '../mapping/display-url.js';
import type { PgStore } from '../store/pg-store.js';
import { openSqliteStore } from '../store/sqlite-store.js';
import { pageSizeFor } from '../store/sqlite-page-size.js';
import type { Store } from '../store/store.js';
import type { BridgeLogRecord } from '../vocabulary/log-record.js';
import type { RecordEncoder } from '../wire/encode-record.js';

/**
 * The store of `config.store`; `shared` is the same store when it is the shared one. `encode`
 * upgrades the SQLite spool of an earlier version (JSON records) to the encoded bytes.
 */
export async function openStore(
  config: BridgeConfig,
  log: Logger,
  encode: RecordEncoder,
): Promise<{ store: Store; shared: PgStore | undefined }> {
  let shared: PgStore | undefined;
  const sc = config.store;
  if (sc.kind === 'postgres') {
    // Loaded only when used: one machine on SQLite never loads the PostgreSQL client.
    const { openPgStore } = await import('../store/pg-store.js');
    shared = await openPgStore({
      url: sc.url,
      password: sc.password,
      replicaId: config.replicaId,
      // A query may not outlive a third of the lease: a cut connection is noticed while the lease holds.
      queryTimeoutMs: Math.max(1000, Math.floor(sc.leaseMs / 3)),
    }).catch((err: unknown) => {
      // The driver's words alone ("connect ECONNREFUSED 127.0.0.1:5433") do not say which setting
      // points there: a leftover export in the shell is the usual cause.
      const why = ((err as Error).message ?? String(err)).split('\n')[0];
      throw new Error(
        `cannot open the shared store ${displayStoreUrl(sc.url)} (BRIDGE_STORE_URL or store.url): ${why}; ` +
          '`check` says more, and without BRIDGE_STORE_URL the bridge uses its embedded SQLite store',
      );
    });
    log.info(
      { store: displayStoreUrl(sc.url), replica: config.replicaId, leaseMs: sc.leaseMs },
      'using the shared PostgreSQL store',
    );
    // Read once: a database that may lose acknowledged commits voids the delivery guarantees, and
    // nothing else would say so before records go missing.
    const { durabilityWarning, readSynchronousCommit } = await import('../store/pg-durability.js');
    const lax = await readSynchronousCommit(shared.db).then(durabilityWarning, () => undefined);
    if (lax !== undefined) log.warn({ store: displayStoreUrl(sc.url) }, lax);
  }
  const store: Store =
    shared ??
    (await openSqliteStore(config.stateDir, {
      pageSize: pageSizeFor(config.spool.mode),
      onPageSize: (o) =>
        o.rebuilt
          ? log.info(
              { from: o.from, to: o.to, bytes: o.bytes, ms: o.ms },
              `state database rebuilt with ${o.to}-byte pages for spool.mode ${config.spool.mode}`,
            )
          : log.warn(
              { pageSize: o.pageSize, wanted: o.wanted, bytes: o.bytes, reason: o.reason },
              `state database kept its ${o.pageSize}-byte pages (spool.mode ${config.spool.mode} writes less with ${o.wanted}); a later start tries again`,
            ),
      migrateRecord: (json) => encode(JSON.parse(json) as BridgeLogRecord),
      onMigrated: (r) =>
        log.info(r, 'state database upgraded: the spool of the previous version is kept and will be delivered'),
      onSpanStateUnreadable: (session, error) =>
        log.warn(
          { session, error },
          "the session's stored span state cannot be read (a corrupt row?): its open spans start afresh; its records are not affected",
        ),
    }));
  return { store, shared };
}
