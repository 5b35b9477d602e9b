// GET /readyz: whether this replica can do its work now, with the reasons when it cannot (503).
// Apart from the router because it is the one route that reads every component's health.
import type { ServerResponse } from 'node:http';
import type { Bridge } from '../daemon/bridge.js';
import { send } from './http-reply.js';

/** Answers /readyz from memory: 200 ready, 503 not_ready with the problems. */
export async function ready(bridge: Bridge, res: ServerResponse): Promise<void> {
  // Read-only and from memory: what the spool's own commits found, not a write of its own (a
  // readiness probe must not cost a synchronous SQLite write or a shared-store connection).
  const problems: string[] = [];
  const commitError = bridge.spool.commitError;
  if (commitError !== undefined) problems.push(`store not writable: ${commitError}`);
  // The shared store in overflow mode: its commits are checkpoint writes, and once one has waited
  // past the stall, delivery from memory pauses; the replica does no work until a write goes through.
  // (The embedded store never pauses for them: a full disk must not stop a healthy delivery, nor make
  // a sidecar's pod unready.)
  else if (bridge.spool.memoryDeliveryPausedMs !== undefined)
    problems.push(
      `store not writable: ${bridge.spool.checkpointError ?? 'checkpoint writes do not complete'}; delivery from memory waits for one`,
    );
  // In overflow mode a failed checkpoint write leaves no commit error (delivery goes on from
  // memory), but a state database deleted under the bridge is state lost at the next start.
  const stateProblem = bridge.store.stateProblem?.();
  if (stateProblem !== undefined && stateProblem !== commitError) problems.push(stateProblem);
  const lease = bridge.supervisor.ownership?.lease;
  if (lease && !lease.valid)
    problems.push(
      'lease not held: the shared store is unreachable or too slow to renew it; nothing is read or sent meanwhile',
    );
  // Every stream refused for the API key: nothing is read; say so, and what to check.
  const refused = bridge.supervisor.status().filter((s) => s.state === 'unauthorized');
  if (refused.length > 0)
    problems.push(
      `the service refuses the API key for ${refused.length} session(s) (check ${bridge.client.keySource}); retried every ${Math.round(bridge.config.upstream.backoff.authMs / 1000)} s`,
    );
  // Delivered batches that cannot be deleted: a full volume (even while commits still squeeze through),
  // or one that refuses writes.
  if (bridge.spool.undeletedBatches > 0)
    problems.push(
      `spool cannot delete ${bridge.spool.undeletedBatches} delivered batches (the volume is full or refuses writes: the log says which); retrying`,
    );
  // Reading waits for room on the volume, and delivering what is spooled would not free enough of it
  // (something else filled the volume, or it is smaller than the reserve): no spool figure moves, and
  // nothing changes until space is freed there. A collector outage that fills the spool to the
  // volume's limit is not this: its delivery frees the room.
  const held = bridge.spool.volumeFull;
  if (held)
    problems.push(
      `reading paused: the volume of the state directory ${bridge.config.stateDir} has ${mib(held.free)} free, within the ${mib(held.reserve)} the spool keeps free for SQLite; free space on it or give it a larger volume`,
    );
  // A failing collector does not make the bridge unready: it still reads and spools safely. It is
  // reported here (and in bridge_export_requests_total) so an operator sees it.
  const body = {
    status: problems.length === 0 ? 'ready' : 'not_ready',
    problems,
    exporter: bridge.delivery.exportFailing
      ? {
          failing: true,
          lastError: bridge.delivery.lastError,
          ...(bridge.delivery.refusing ? { refusingAll: bridge.delivery.refusing } : {}),
        }
      : { failing: false },
    // Spans travel beside the records on their own transport (docs/traces.md): their failure is
    // said apart, in the same words, and does not make the bridge unready either.
    ...(bridge.spans
      ? {
          traces:
            bridge.spans.lastError !== undefined
              ? { failing: true, lastError: bridge.spans.lastError, queued: bridge.spans.queued }
              : { failing: false },
        }
      : {}),
    // The shared store may be the very thing that is unreachable.
    spool: await bridge.spoolFigures().then(
      (s) => {
        const pausedMs = bridge.spool.memoryDeliveryPausedMs;
        return {
          ...s,
          limitedByDisk: bridge.spool.limitedByDisk,
          // Delivery from memory waits for checkpoint writes (the store's failing commits say why).
          ...(pausedMs !== undefined ? { deliveryPausedMs: pausedMs } : {}),
        };
      },
      () => null,
    ),
    ...(bridge.supervisor.ownership
      ? {
          replica: bridge.config.replicaId,
          lease: { valid: bridge.supervisor.ownership.lease.valid },
          replicas: bridge.supervisor.ownership.replicas,
        }
      : {}),
  };
  send(res, problems.length === 0 ? 200 : 503, body);
}

const mib = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
