// The composition root: builds every component of the pipeline from the configuration and wires
// them together, and owns their lifecycle: started source-ward last (store → spool → delivery →
// sessions) and stopped in pipeline order, the whole order in one function (stop-bridge.ts: intake
// → sessions stop reading → spool commits → delivery drains → spill → hand-over → spans → store).
// The store is opened by open-store.ts.
// `run`, `demo` and the integration tests all start the bridge through here.
import { statfsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/schema.js';
import { createMapper } from '../mapping/mapper.js';
import { createMetrics, type BridgeMetrics } from '../observe/metrics.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { CHECKPOINT_MIN_BYTES, COMMIT_MAX_BYTES, Spool } from '../store/spool.js';
import type { SessionRow, SpoolStats, Store } from '../store/store.js';
import { sendFinishedSessionSpans } from '../session/finished-session-spans.js';
import { createUpstreamClient, type UpstreamClient } from '../upstream/client.js';
import { Delivery } from '../export/delivery.js';
import { createRecordEncoder } from '../wire/encode-record.js';
import { createRequestBuilder } from '../wire/otlp-request.js';
import type { OtlpTransport } from '../export/otlp-transport.js';
import { createTransport } from '../export/create-transport.js';
import { spanTapFactory } from '../session/span-tap.js';
import { probeConfigured } from './configured-probe.js';
import { resourceAttributes, SCOPE } from '../wire/resource.js';
import { createFactSink } from '../observe/facts.js';
import type { Emit } from '../vocabulary/facts.js';
import { Supervisor } from './supervisor.js';
import { openStore } from './open-store.js';
import { startFinishedRetention } from './finished-retention.js';
import { stopBridge } from './stop-bridge.js';
import { startSpanExport } from './start-span-export.js';
import type { SpanExport } from '../export/span-export.js';
import { startPoolResolver, type PoolResolver } from './pool-resolver.js';
import { SwappableMapper } from '../session/swappable-mapper.js';
import { IngestWorkers, resolveWorkers } from '../ingest/worker-group.js';
import { WorkerScaling } from './worker-scaling.js';
import { once } from '../util/lifecycle.js';
import { steadyNow } from '../util/steady-clock.js';
import { lastKnown } from '../util/cached.js';
import { containerMemoryLimit, HELD_SHARE, startMemoryGuard } from '../util/memory-budget.js';
import { DiscoveryLoop } from '../discovery/discovery-loop.js';

/** Committed segments handed to delivery from memory; beyond this a backlog is read back from disk. */
const MEMORY_MAX_BYTES = 16 * 1024 * 1024;
/** The default memory window of the overflow mode, at most (a budget may make it smaller). */
const OVERFLOW_WINDOW_BYTES = 64 * 1024 * 1024;

export interface Bridge {
  config: BridgeConfig;
  supervisor: Supervisor;
  /** Pool lookup and enrichment; poolStatus() for status surfaces. */
  pools: PoolResolver;
  /** The mapper every session uses; a configuration reload swaps its options. */
  mapper: SwappableMapper;
  delivery: Delivery;
  /** The span exporter, when traces.enabled; its lastError for status surfaces, as delivery's. */
  spans: Pick<SpanExport, 'lastError' | 'queued' | 'queuedBytes'> | undefined;
  store: Store;
  spool: Spool;
  metrics: BridgeMetrics;
  /** Where every component's facts go: the metrics and the log, together. */
  emit: Emit;
  client: UpstreamClient;
  log: Logger;
  /** The poll of the service's session list; absent unless discovery is enabled. */
  discovery: DiscoveryLoop | undefined;
  /** The ingest worker threads; absent when the sessions run on the main thread (`workers: 0`). */
  ingest: IngestWorkers | undefined;
  /** The store's spool figures, read at most once every few seconds (scrapes and readiness share them). */
  spoolFigures(): Promise<SpoolFigures>;
  /**
   * Stops reading, delivers until `deadline` (epoch ms; default: now plus the configured grace
   * period), closes everything. Resolves with whether the spool emptied. Idempotent.
   */
  shutdown(deadline?: number): Promise<boolean>;
}

/** How long the spool figures of /metrics and /readyz are served from memory. */
const SPOOL_FIGURES_TTL_MS = 5000;
/**
 * How long a scrape or a probe waits for the store's figures before it is answered with the last
 * known ones: a store that does not answer (PostgreSQL stopped, a cut network) gives up a query only
 * at its timeout, seconds later, and a scraper or a probe gives up before that.
 */
const SPOOL_FIGURES_WAIT_MS = 1000;

/**
 * What waits for delivery. `stale`: the store did not answer within SPOOL_FIGURES_WAIT_MS, so the
 * oldest record's time is the last one the store gave (`storeAgeMs` ago; memory's alone before any).
 */
export interface SpoolFigures extends SpoolStats {
  stale?: true;
  storeAgeMs?: number;
}

export interface BridgeOverrides {
  transport?: OtlpTransport;
  metrics?: BridgeMetrics;
}

/** Free and total bytes of the state directory's volume, for the spool's size limit; undefined when unknown. */
function freeBytesOf(dir: string): { free: number; total: number } | undefined {
  try {
    const s = statfsSync(dir);
    return { free: s.bavail * s.bsize, total: s.blocks * s.bsize };
  } catch {
    return undefined;
  }
}

export async function startBridge(config: BridgeConfig, log: Logger, overrides: BridgeOverrides = {}): Promise<Bridge> {
  const metrics = overrides.metrics ?? createMetrics({ spoolCapacityBytes: config.spool.maxBytes });
  const emit = createFactSink(metrics, log);
  const encode = createRecordEncoder();
  const { store, shared } = await openStore(config, log, encode);
  const sc = config.store;
  const budget = config.memoryLimitBytes === 'off' ? undefined : (config.memoryLimitBytes ?? containerMemoryLimit());
  const memory = budget === undefined ? undefined : startMemoryGuard(budget);
  // A sixteenth of the memory budget at most: the rest is the heap, sockets and pending records.
  const spoolMemoryMaxBytes = Math.min(
    MEMORY_MAX_BYTES,
    Math.max(1024 * 1024, config.spool.maxBytes >> 2),
    budget === undefined ? Infinity : Math.max(1024 * 1024, budget >> 4),
  );
  // Overflow mode: what records may hold in memory before they spill (waiting and in flight).
  const memoryWindowBytes =
    config.spool.memoryMaxBytes ??
    Math.min(OVERFLOW_WINDOW_BYTES, budget === undefined ? Infinity : Math.max(8 * 1024 * 1024, budget >> 3));
  const spool = await Spool.open({
    store,
    mode: config.spool.mode,
    memoryMaxAgeMs: config.spool.memoryMaxAgeMs,
    ...(memory ? { memoryPressure: () => memory.over } : {}),
    // The local volume bounds only the local store: the shared one lives on the database's disk.
    ...(store instanceof SqliteStore
      ? {
          freeBytes: () => {
            const v = freeBytesOf(config.stateDir);
            return v && { free: v.free + store.reusableBytes(), total: v.total };
          },
        }
      : {}),
    maxBytes: config.spool.maxBytes,
    memoryMaxBytes: config.spool.mode === 'always' ? spoolMemoryMaxBytes : memoryWindowBytes,
    commitMaxRecords: config.spool.commitMaxRecords,
    commitIntervalMs: config.spool.commitIntervalMs,
    // A successor resumes the sessions from the written checkpoints: what this replica delivers
    // while it cannot write them (cut off from the database) stays bounded.
    pauseOnUnwrittenCheckpoints: shared !== undefined,
    // The embedded store writes a page per checkpoint write: a slow flow's wait for some bytes. Not
    // the shared store, whose successors resume from the written checkpoints (and whose writes are rows).
    checkpointMinBytes: shared === undefined ? CHECKPOINT_MIN_BYTES : 0,
    emit,
  });
  memory?.watch((over) => {
    if (over)
      log.warn(
        { rssBytes: process.memoryUsage.rss(), budgetBytes: budget },
        'over the memory budget: reading is paused until memory is back under it',
      );
    else {
      log.info(
        { rssBytes: process.memoryUsage.rss(), budgetBytes: budget },
        'memory back under the budget: reading resumes',
      );
      spool.recheckRoom();
    }
  });
  const client = createUpstreamClient(config.upstream);
  const mapper = new SwappableMapper((options) => createMapper(options, { emit }), config.mapping);
  const ex = config.exporter;
  const transport = overrides.transport ?? (await createTransport(ex, { emit }));
  const requests = createRequestBuilder(ex.protocol, { resource: resourceAttributes(config.resource), scope: SCOPE });
  const workers = resolveWorkers(config.workers);
  // Spans are built where the events are read, a worker thread included; they are sent from here.
  const spanExport = config.traces.enabled ? await startSpanExport(config, emit) : undefined;
  // `auto` starts the workers only once they are worth their cost (worker-scaling.ts).
  const lazy = config.workers === 'auto';
  const ingest =
    workers === 0
      ? undefined
      : await IngestWorkers.open(
          {
            workers,
            config,
            log,
            logPretty: Boolean(process.stderr.isTTY),
            spool,
            emit,
            ...(spanExport ? { spans: spanExport } : {}),
          },
          lazy,
        );
  const scaling = ingest && lazy ? new WorkerScaling({ ingest, log }) : undefined;
  if (ingest) {
    mapper.onSwap((options) => ingest.setMapping(options));
    if (!lazy) log.info({ workers }, 'sessions are read, mapped and encoded in ingest worker threads');
  }
  const delivery = new Delivery({
    spool,
    transport,
    requests,
    emit,
    batchMaxRecords: ex.batchMaxRecords,
    batchMaxBytes: ex.batchMaxBytes,
    concurrency: ex.concurrency,
    backoff: ex.backoff,
  });
  if (memory) {
    memory.countHeld(() => {
      const h = spool.heldBytes;
      return h.pending + h.ready + delivery.inFlightBytes;
    });
    warnIfHeldExceedsBudget(memory.budgetBytes, spoolMemoryMaxBytes, ex.concurrency * ex.batchMaxBytes, log);
  }
  // The supervisor is built last of the chain and watches what it needs of the others (delivery,
  // ingest workers, the spool through ownership): nothing here refers to a component not yet built.
  const supervisor = new Supervisor({
    config,
    store,
    spool,
    encode,
    client,
    mapper,
    emit,
    log,
    delivery,
    ...(spanExport
      ? {
          spans: spanTapFactory(spanExport, { captureEveryMs: config.traces.stateIntervalMs }),
          finishedSpans: (rows: Iterable<SessionRow>, done?: (sessionId: string) => void) => {
            const offered = sendFinishedSessionSpans(rows, { sink: spanExport, store, log, ...(done ? { done } : {}) });
            if (offered > 0) log.info({ spans: offered }, 'sending the spans that ended or removed sessions still owe');
          },
        }
      : {}),
    ...(ingest ? { ingest } : {}),
    ...(scaling ? { scaling } : {}),
    ...(shared && sc.kind === 'postgres' ? { shared: { store: shared, leaseMs: sc.leaseMs } } : {}),
  });
  // One store query per period whatever the scrape rate: scrapes must not cost commits or leases.
  const storeFigures = lastKnown(() => store.spoolStats(), {
    ttlMs: SPOOL_FIGURES_TTL_MS,
    waitMs: SPOOL_FIGURES_WAIT_MS,
  });
  // What waits for delivery: in the store, and (overflow mode) in memory, counted live.
  const spoolFigures = async (): Promise<SpoolFigures> => {
    const stored = await storeFigures();
    const inStore = stored?.value.oldestTsMicros ?? null;
    const inMemory = spool.oldestInMemoryTsMicros;
    const oldestTsMicros = inStore === null || inMemory === null ? (inStore ?? inMemory) : Math.min(inStore, inMemory);
    const figures: SpoolFigures = { ...spool.spooled, oldestTsMicros };
    if (stored === undefined || stored.stale) {
      figures.stale = true;
      if (stored) figures.storeAgeMs = Math.round(stored.ageMs);
    }
    return figures;
  };
  metrics.setSources({
    ...(shared ? { ownedSessions: () => shared.ownedSessions().size } : {}),
    spool: spoolFigures,
    pendingRecords: () => spool.pendingCount,
    sessionsByState: () => supervisor.sessionsByState(),
    sessionsOwingGaps: () => supervisor.sessionsOwingGaps(),
    heldBytes: () => ({ ...spool.heldBytes, sending: delivery.inFlightBytes }),
    spoolLimitBytes: () => spool.limitBytes,
  });
  delivery.start();
  try {
    await supervisor.start();
  } catch (err) {
    // The worker threads would keep a process that failed to start alive.
    await ingest?.close();
    throw err;
  }
  const pools = startPoolResolver({ client, sessions: supervisor, log, refreshMs: config.upstream.poolRefreshMs });
  const retention = startFinishedRetention(store, log);
  void probeConfigured({
    client,
    sessions: config.sessions,
    collectorUrl: config.exporter.url,
    emit,
    debug: (detail, message) => log.debug(detail, message),
  });
  let discovery: DiscoveryLoop | undefined;
  if (config.discovery.enabled) {
    discovery = new DiscoveryLoop({
      config: config.discovery,
      client,
      store,
      emit,
      backoff: config.upstream.backoff,
      collectorUrl: config.exporter.url,
      host: { discovered: (specs) => supervisor.discovered(specs) },
    });
    discovery.start();
    const { tags, query, intervalMs } = config.discovery;
    log.info(
      { tags, query, intervalMs },
      "discovery: following every session of the service's list that matches the selector",
    );
  }

  return {
    config,
    supervisor,
    pools,
    mapper,
    delivery,
    spans: spanExport,
    store,
    spool,
    metrics,
    emit,
    client,
    log,
    ingest,
    discovery,
    spoolFigures,
    shutdown: once((deadline = steadyNow() + config.shutdownGraceMs) =>
      stopBridge(
        { discovery, pools, retention, memory, supervisor, spool, delivery, spanExport, ingest, client, store },
        deadline,
      ),
    ),
  };
}

/**
 * What the configuration lets records take in memory at most (a commit's worth, the ready queue,
 * every concurrent export request) against the share of the budget they may hold: past it, reading
 * pauses whenever that much is held, so delivery runs below what the settings ask for. Said once, at
 * start, with the settings that make it so.
 */
function warnIfHeldExceedsBudget(budgetBytes: number, readyBytes: number, sendingBytes: number, log: Logger): void {
  const worst = COMMIT_MAX_BYTES + readyBytes + sendingBytes;
  if (worst <= budgetBytes * HELD_SHARE) return;
  log.warn(
    { budgetBytes, heldAtMostBytes: worst, exportRequestsBytes: sendingBytes },
    'exporter.concurrency × exporter.batch_max_bytes leaves too little of the memory budget: reading will pause while that much is being sent; lower them or raise memory_limit',
  );
}
