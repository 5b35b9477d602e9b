// The bridge's stop, the whole order in one function: intake → sessions stop reading → spool commits
// → delivery drains → spill → hand-over → spans → store. Apart from the composition root
// (bridge.ts), which builds the components, because the order they stop in is its own contract.
import type { DiscoveryLoop } from '../discovery/discovery-loop.js';
import type { Delivery } from '../export/delivery.js';
import type { SpanExport } from '../export/span-export.js';
import type { IngestWorkers } from '../ingest/worker-group.js';
import type { Spool } from '../store/spool.js';
import type { Store } from '../store/store.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { MemoryGuard } from '../util/memory-budget.js';
import type { PoolResolver } from './pool-resolver.js';
import type { FinishedRetention } from './finished-retention.js';
import type { Supervisor } from './supervisor.js';

/** What stopBridge stops, each once. */
export interface Running {
  discovery: DiscoveryLoop | undefined;
  pools: PoolResolver;
  retention: FinishedRetention;
  memory: MemoryGuard | undefined;
  supervisor: Supervisor;
  spool: Spool;
  delivery: Delivery;
  spanExport: SpanExport | undefined;
  ingest: IngestWorkers | undefined;
  client: UpstreamClient;
  store: Store;
}

/**
 * The whole stop, in order; resolves with whether the spool emptied. The pipeline stops sink-ward:
 * nothing new comes in before anything is drained, so what is drained is all there is; the spool
 * commits before delivery's last round, so that round sees every record read; delivery stops before
 * the spool spills, so a record goes either to the collector or to the store (the checkpoints that
 * acks moved are written with the spill); sessions are handed to other replicas only once their
 * records are delivered or stored, so the next owner resumes from a checkpoint that holds; the span
 * exporter stops after every session has, so it sends the last spans they made; the store closes
 * last, as every step before may write to it.
 */
export async function stopBridge(r: Running, deadline: number): Promise<boolean> {
  // 1. No new sessions, pool lookups, prunes of finished sessions or memory verdicts.
  await r.discovery?.stop();
  await r.pools.stop();
  await r.retention.stop();
  r.memory?.stop();
  // 2. Every session stops reading (and claiming, with the shared store).
  await r.supervisor.stopReading();
  // 3. The spool commits what was read.
  await r.spool.close();
  // 4. Delivery sends until the spool is empty or the deadline has passed.
  const drained = await r.delivery.stop(deadline);
  // 5. What it could not send goes to the store (overflow mode), with the checkpoints acks moved.
  await r.spool.finish();
  // 6. Ends and removals are recorded; the sessions go to the other replicas.
  await r.supervisor.handOver(drained);
  // 7. The spans are flushed to the collector.
  await r.spanExport?.shutdown(deadline);
  // 8. The ingest threads, the service's connections, then the store.
  await r.ingest?.close();
  await r.client.close();
  await r.store.close();
  return drained;
}
