// The composition root: builds every component of the pipeline from the configuration and wires
// them together. `run`, `demo` and the integration tests all start the bridge through here.
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/schema.js';
import { createMapper } from '../mapping/mapper.js';
import { createMetrics, type BridgeMetrics } from '../server/metrics.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { SpoolWriter } from '../store/spool-writer.js';
import type { Store } from '../store/store.js';
import { createApiKeyProvider } from '../upstream/api-key.js';
import { UpstreamClient } from '../upstream/client.js';
import { Delivery } from '../export/delivery.js';
import { installDiagBridge } from '../export/diag-bridge.js';
import { createOtlpExporter, type LogExporter } from '../export/otlp-exporter.js';
import { buildResource } from '../export/resource.js';
import { createMappingStats } from './mapping-stats.js';
import { Supervisor } from './supervisor.js';
import { startPoolResolver, type PoolResolver } from './pool-resolver.js';
import { SwappableMapper } from './swappable-mapper.js';
import { BRIDGE_VERSION } from '../util/version.js';

export interface Bridge {
  config: BridgeConfig;
  supervisor: Supervisor;
  /** Pool lookup and enrichment; poolStatus() for status surfaces. */
  pools: PoolResolver;
  /** The mapper every session uses; a configuration reload swaps its options. */
  mapper: SwappableMapper;
  delivery: Delivery;
  store: Store;
  writer: SpoolWriter;
  metrics: BridgeMetrics;
  client: UpstreamClient;
  log: Logger;
  /** Stops reading, delivers within the grace period, closes everything. Idempotent. */
  shutdown(graceMs?: number): Promise<boolean>;
}

export interface BridgeOverrides {
  exporter?: LogExporter;
  metrics?: BridgeMetrics;
}

export function startBridge(config: BridgeConfig, log: Logger, overrides: BridgeOverrides = {}): Bridge {
  const metrics = overrides.metrics ?? createMetrics();
  const store = new SqliteStore(config.stateDir);
  const writer = new SpoolWriter({
    store,
    maxBytes: config.spool.maxBytes,
    commitMaxRecords: config.spool.commitMaxRecords,
    commitIntervalMs: config.spool.commitIntervalMs,
    onCommitError: (err, streak) => {
      metrics.spoolCommitErrors.inc();
      if (streak === 1 || streak % 50 === 0) {
        log.error({ error: err.message, code: (err as { code?: string }).code, streak }, 'cannot write the spool (disk full?); reading is paused and the write is retried');
      }
    },
    onCommitRecovered: () => log.info('spool writes succeed again'),
  });
  const client = new UpstreamClient({
    baseUrl: config.upstream.url,
    apiKey: createApiKeyProvider(config.upstream),
    connectTimeoutMs: config.upstream.connectTimeoutMs,
    userAgent: `browser-telemetry-bridge/${BRIDGE_VERSION}`,
  });
  const stats = createMappingStats(metrics);
  const mapper = new SwappableMapper((options) => createMapper(options, { stats }), config.mapping);
  const exporter = overrides.exporter ?? createOtlpExporter(config.exporter);
  installDiagBridge(log, (p) => {
    metrics.eventsRejected.inc({ reason: 'partial_success' }, p.rejected);
    log.error({ rejected: p.rejected, error: p.message }, 'collector rejected records in a partial-success answer');
  });
  const resource = buildResource(config.resource);
  let supervisor: Supervisor | undefined;
  const delivery = new Delivery({
    store, exporter, resource, metrics, log,
    batchMaxRecords: config.exporter.batchMaxRecords,
    concurrency: config.exporter.concurrency,
    backoff: config.exporter.backoff,
    onDelivered: (rows) => supervisor?.onDelivered(rows),
    onSettled: () => supervisor?.onDeliverySettled(),
  });
  writer.onCommitted(() => delivery.wake());
  supervisor = new Supervisor({ config, store, writer, client, mapper, metrics, log, delivery });
  delivery.start();
  supervisor.start();
  const pools = startPoolResolver({ client, sessions: supervisor, log, refreshMs: config.upstream.poolRefreshMs });

  let closing: Promise<boolean> | undefined;
  const sup = supervisor;
  return {
    config, supervisor: sup, pools, mapper, delivery, store, writer, metrics, client, log,
    shutdown(graceMs = config.shutdownGraceMs) {
      closing ??= (async () => {
        await pools.stop();
        const drained = await sup.shutdown(graceMs);
        await Promise.race([exporter.shutdown(), new Promise((r) => setTimeout(r, 1000))]);
        await client.close();
        store.close();
        return drained;
      })();
      return closing;
    },
  };
}
