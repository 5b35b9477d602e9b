// An ingest worker: a thread that follows a share of the sessions. Each of its sessions reads its
// stream, parses and sequences the frames, maps and encodes the events: the CPU-heavy half of the
// pipeline. The encoded records go to the main thread in batches (outbox.ts), which owns the spool,
// the store and delivery, so durability and ordering are decided in one place exactly as without
// workers: a checkpoint still moves only in the transaction that spools its records.
//
// Lifecycle: started by worker-group.ts with the configuration → follow / spec / enrich / stop messages for
// single sessions, `mapping` on a configuration reload → terminated by the main thread once every
// session was stopped. Every `report` interval the worker sends its sessions' status and what its
// counters grew by. An exception nobody catches ends the worker; the main thread then follows its
// sessions again from their checkpoints (worker-group.ts), so nothing read and not spooled is lost.
import { parentPort, workerData } from 'node:worker_threads';
import { createMapper } from '../mapping/mapper.js';
import { createMetrics } from '../observe/metrics.js';
import type { BridgeLogRecord } from '../vocabulary/log-record.js';
import { createUpstreamClient } from '../upstream/client.js';
import { ArchiveReader } from '../upstream/archive.js';
import { createLogger } from '../util/logger.js';
import { createMappingStats } from '../session/mapping-stats.js';
import { SessionPipeline, streamSettings } from '../session/session-pipeline.js';
import { SwappableMapper } from '../session/swappable-mapper.js';
import type { SessionStatus } from '../session/session-status.js';
import { CounterReader } from './counter-relay.js';
import { Outbox } from './outbox.js';
import type { FromWorker, ToWorker, WorkerInit } from './protocol.js';

const port = parentPort;
if (!port) throw new Error('ingest/worker.ts runs as a worker thread (pool.ts starts it)');
const init = workerData as WorkerInit;
const { config } = init;
const log = createLogger({ level: init.log.level, pretty: init.log.pretty }).child(init.log.bindings);
const metrics = createMetrics({ defaultMetrics: false });
const counters = new CounterReader(metrics.registry);
const client = createUpstreamClient(config.upstream);
const stats = createMappingStats(metrics);
const mapper = new SwappableMapper((options) => createMapper(options, { stats }), config.mapping);
const archive = new ArchiveReader(client, log, { mode: config.upstream.archive });
const post = (msg: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(msg, transfer);
const outbox = new Outbox(post, init.inFlightBytes);
// Records are encoded straight into the batch that carries them to the main thread.
const encode = (record: BridgeLogRecord): Buffer => outbox.encode(record);
const sessions = new Map<number, SessionPipeline>();

let nextReq = 1;
const replies = new Map<number, () => void>();

async function report(): Promise<void> {
  // The statuses are built after the await and posted at once: held across it, a thousand of them
  // would outlive a young-generation collection every time and fill the old one with garbage.
  const deltas = await counters.deltas();
  const statuses: Array<[number, SessionStatus]> = [];
  for (const [h, s] of sessions) statuses.push([h, s.status()]);
  post({ t: 'report', statuses, counters: deltas });
}

async function onEnded(h: number): Promise<void> {
  // Everything the session appended goes first: its end is recorded after its last records, and
  // the status the supervisor keeps of it is its final one.
  outbox.flush();
  await report();
  const req = nextReq++;
  await new Promise<void>((resolve) => {
    replies.set(req, resolve);
    post({ t: 'ended', h, req });
  }).then(() => {
    const s = sessions.get(h);
    if (s) outbox.unbind(s.id);
    sessions.delete(h);
  });
}

async function stop(h: number, req: number): Promise<void> {
  const s = sessions.get(h);
  let status: SessionStatus | undefined;
  if (s) {
    await s.stop();
    status = s.status();
    sessions.delete(h);
  }
  // Its last records and counts reach the main thread before the answer does.
  outbox.flush();
  await report();
  if (s) outbox.unbind(s.id);
  post({ t: 'stopped', req, status });
}

function handle(m: ToWorker): void {
  switch (m.t) {
    case 'follow': {
      const s = new SessionPipeline(m.row, {
        client, mapper, spool: outbox, encode, metrics, log, archive, ...streamSettings(config),
        onEnded: () => onEnded(m.h),
      });
      sessions.set(m.h, s);
      outbox.bind(s.id, m.h);
      s.start();
      break;
    }
    case 'stop':
      void stop(m.h, m.req);
      break;
    case 'spec':
      sessions.get(m.h)?.updateSpec(m.spec);
      break;
    case 'enrich':
      sessions.get(m.h)?.setEnrichment(m.attrs);
      break;
    case 'mapping':
      try {
        mapper.swap(m.options);
      } catch (err) {
        // The main thread built the same options before sending them; this is not expected.
        log.error({ error: (err as Error).message }, 'an ingest worker cannot apply the new mapping options; it keeps the previous ones');
      }
      break;
    case 'ack':
      outbox.acked(m.bytes);
      break;
    case 'reply': {
      const r = replies.get(m.req);
      replies.delete(m.req);
      r?.();
      break;
    }
  }
}

port.on('message', handle);
setInterval(() => void report().catch((err: unknown) => log.error({ error: (err as Error).message }, 'cannot report status')), init.reportEveryMs).unref();
post({ t: 'ready' });
