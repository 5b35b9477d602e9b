// An ingest worker: a thread that follows a share of the sessions. Each of its sessions reads its
// stream, parses and sequences the frames, maps and encodes the events: the CPU-heavy half of the
// pipeline. The encoded records go to the main thread in batches (outbox.ts), which owns the spool,
// the store and delivery, so durability and ordering are decided in one place exactly as without
// workers: a checkpoint still moves only in the transaction that spools its records.
//
// Lifecycle: started by worker-group.ts with the configuration → follow / spec / enrich / stop messages for
// single sessions, `mapping` on a configuration reload → terminated by the main thread once every
// session was stopped. Every `report` interval the worker sends its sessions' status and the facts
// its sessions and mapper emitted (fact-relay.ts). An exception nobody catches ends the worker; the
// main thread then follows its sessions again from their checkpoints (worker-group.ts), so nothing
// read and not spooled is lost.
import { parentPort, workerData } from 'node:worker_threads';
import { createMapper } from '../mapping/mapper.js';
import type { BridgeLogRecord } from '../vocabulary/log-record.js';
import { createUpstreamClient } from '../upstream/client.js';
import { createLogger } from '../util/logger.js';
import type { SessionPipeline } from '../session/session-pipeline.js';
import { sessionFactory } from '../session/session-factory.js';
import { SwappableMapper } from '../session/swappable-mapper.js';
import type { SessionStatus } from '../session/session-status.js';
import { FactRelay } from './fact-relay.js';
import { Outbox } from './outbox.js';
import { spanTapFactory, type SpanTapFactory } from '../session/span-tap.js';
import type { FromWorker, ToWorker, WorkerInit } from './protocol.js';
import { paceReads, type PacingCounts } from '../util/read-pacing.js';

const port = parentPort;
if (!port) throw new Error('ingest/worker.ts runs as a worker thread (pool.ts starts it)');
const init = workerData as WorkerInit;
const { config } = init;
const log = createLogger({ level: init.log.level, pretty: init.log.pretty }).child(init.log.bindings);
const facts = new FactRelay();
const client = createUpstreamClient(config.upstream);
const mapper = new SwappableMapper((options) => createMapper(options, { emit: facts.emit }), config.mapping);
// The facts counted so far go ahead of every batch: the main thread counts a record delivered as
// soon as the collector takes it, and a batch delivered before the next report made
// bridge_events_delivered_total run ahead of bridge_events_received_total (25 against 0).
const post = (msg: FromWorker, transfer: ArrayBuffer[] = []): void => {
  if (msg.t === 'batch') {
    const counted = facts.take();
    if (counted.length > 0) port.postMessage({ t: 'report', statuses: [], facts: counted } satisfies FromWorker);
  }
  port.postMessage(msg, transfer);
};
const outbox = new Outbox(post, init.inFlightBytes);
// Records are encoded straight into the batch that carries them to the main thread.
const encode = (record: BridgeLogRecord): Buffer => outbox.encode(record);
const sessions = new Map<number, SessionPipeline>();
// Spans are built here, beside the mapper; the main thread sends them and carries the unsent ones.
const spans: SpanTapFactory | undefined = config.traces.enabled
  ? (sessionId, stored) =>
      spanTapFactory(
        { offer: (encoded) => outbox.offerSpans(sessionId, encoded) },
        { carry: false, captureEveryMs: config.traces.stateIntervalMs },
      )(sessionId, stored)
  : undefined;
// Under load this thread lets its streams' frames gather before it reads them (util/read-pacing.ts).
const pacer = paceReads(config.upstream.readPacingMs);
const reported: PacingCounts = { reads: 0, sleeps: 0, sleptMs: 0 };
const newSession = sessionFactory({
  config,
  client,
  mapper,
  spool: outbox,
  encode,
  emit: facts.emit,
  log,
  ...(spans ? { spans } : {}),
});

let nextReq = 1;
const replies = new Map<number, () => void>();

/**
 * Facts go every report; statuses (an object per session, built and cloned: with a thousand live
 * sessions that was most of a report's cost) every STATUS_EVERY-th. When a session ends or stops
 * (`final`), the report carries that session's status alone, so its final status is never a stale
 * one: every session's status there made a thousand sessions stopping together cost a million
 * statuses (1.3 s of the worker's CPU at the end of the heavy mix).
 */
const STATUS_EVERY = 4;
let reports = 0;

function report(final?: number): void {
  const statuses: Array<[number, SessionStatus]> = [];
  if (final !== undefined) {
    const s = sessions.get(final);
    if (s) statuses.push([final, s.status()]);
  } else if (++reports % STATUS_EVERY === 0) {
    for (const [h, s] of sessions) statuses.push([h, s.status()]);
  }
  if (pacer && pacer.counts.reads > reported.reads) {
    const { reads, sleeps, sleptMs } = pacer.counts;
    facts.emit({
      f: 'reads_paced',
      reads: reads - reported.reads,
      sleeps: sleeps - reported.sleeps,
      sleptMs: sleptMs - reported.sleptMs,
    });
    Object.assign(reported, pacer.counts);
  }
  post({ t: 'report', statuses, facts: facts.take() });
}

async function onEnded(h: number): Promise<void> {
  // Everything the session appended goes first: its end is recorded after its last records, and
  // the status the supervisor keeps of it is its final one.
  outbox.flush();
  report(h);
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

async function stop(h: number, req: number, removed: boolean): Promise<void> {
  const s = sessions.get(h);
  let status: SessionStatus | undefined;
  if (s) {
    await s.stop(removed);
    status = s.status();
    sessions.delete(h);
  }
  // Its last records and facts reach the main thread before the answer, which carries its status.
  outbox.flush();
  report(h);
  if (s) outbox.unbind(s.id);
  post({ t: 'stopped', req, status });
}

function handle(m: ToWorker): void {
  switch (m.t) {
    case 'follow': {
      const s = newSession(m.row, () => onEnded(m.h));
      sessions.set(m.h, s);
      outbox.bind(s.id, m.h);
      s.start();
      break;
    }
    case 'stop':
      void stop(m.h, m.req, m.removed);
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
        log.error(
          { error: (err as Error).message },
          'an ingest worker cannot apply the new mapping options; it keeps the previous ones',
        );
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
setInterval(() => report(), init.reportEveryMs).unref();
post({ t: 'ready' });
