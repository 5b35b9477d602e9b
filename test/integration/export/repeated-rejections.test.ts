// A collector that rejects records again and again: some in every answer (a processor that drops
// records with an old timestamp, a tenant over a cardinality limit), or every record above its size
// limit (413, a kind of record larger than it: every screenshot). Every rejected record is counted,
// but the error line is said the first time and then every 50th time, not once per request or
// record, which at a busy bridge's rate buried every other line (a dropped record's own line stays
// at debug level). The bridge runs in this process with a logger of its own, on real sockets; a
// loopback front answers each logs request itself after handing it to the real receiver, or
// refuses it.
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridge } from '../../../src/daemon/bridge.js';
import { collectorFront } from '../../helpers/collector-front.js';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
let front: Server | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  front?.closeAllConnections();
  await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
  front = undefined;
});

/** Refuses every request larger than `limit` bytes with 413 and hands the others to the receiver. */
async function limitedFront(receiverUrl: string, limit: number): Promise<string> {
  const f = await collectorFront(receiverUrl, (_n, body, forward) =>
    body.length > limit ? { status: 413, contentType: 'text/plain', body: 'request entity too large' } : forward(),
  );
  front = f.server;
  return f.url;
}

/** Forwards each request to the receiver and answers it with a partial success rejecting one record. */
async function rejectingFront(
  receiverUrl: string,
  message: (n: number) => string,
): Promise<{ url: string; answers: () => number }> {
  let answers = 0;
  const f = await collectorFront(receiverUrl, async (_n, _body, forward) => {
    await forward();
    // Counted once the receiver has the records, as a collector answers after storing them.
    const n = answers++;
    return {
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ partialSuccess: { rejectedLogRecords: '1', errorMessage: message(n) } }),
    };
  });
  front = f.server;
  return { url: f.url, answers: () => answers };
}

function capturingLogger(): { log: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return {
    log: pino({ level: 'debug' }, sink),
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const EVENTS = 300;
const SMALL_BATCHES = { ...FAST, exporter: { ...(FAST.exporter as object), batch_max_records: 10, concurrency: 1 } };

async function run(message: (n: number) => string) {
  h = await harness();
  const f = await rejectingFront(h.receiver.url, message);
  h.sim.createSession('ps').emit(EVENTS);
  const { log, lines } = capturingLogger();
  const bridge = await startBridge(
    h.config(SMALL_BATCHES, { BRIDGE_SESSIONS: 'ps', OTEL_EXPORTER_OTLP_ENDPOINT: f.url }),
    log,
  );
  const rejected = (): number => bridge.metrics.eventsRejected.get({ reason: 'partial_success' }) ?? 0;
  await until(() => bridge.delivery.deliveredTotal + rejected() >= EVENTS, 'every record answered', 30_000);
  await bridge.shutdown(Date.now() + 2000);
  const said = lines().filter((l) => l.msg === 'collector rejected records in a partial-success answer');
  return { said, rejected: rejected(), answers: f.answers() };
}

describe('a collector that rejects records in every answer', () => {
  it('counts every rejected record and says so once, not once per request', async () => {
    const r = await run(() => 'timestamp too old');
    // At most 10 records a request: 30 answers at least, each rejecting one.
    expect(r.answers).toBeGreaterThanOrEqual(EVENTS / 10);
    expect(r.rejected).toBe(r.answers);
    expect(r.said).toHaveLength(1);
    expect(r.said[0]).toMatchObject({ rejected: 1, error: 'timestamp too old', times: 1 });
  });

  it('a new message from the collector is said at once', async () => {
    const r = await run((n) => (n < 5 ? 'timestamp too old' : 'attribute limit exceeded'));
    expect(r.said.map((l) => l.error)).toEqual(['timestamp too old', 'attribute limit exceeded']);
  });
});

describe('a collector whose size limit is below many records', () => {
  it('drops each one after proof, counts every one, and says so at error level the first time and every 50th', async () => {
    h = await harness();
    const url = await limitedFront(h.receiver.url, 1500);
    h.sim.createSession('big', { categories: 'all' }).emit(EVENTS);
    const { log, lines } = capturingLogger();
    const bridge = await startBridge(
      h.config(SMALL_BATCHES, { BRIDGE_SESSIONS: 'big', OTEL_EXPORTER_OTLP_ENDPOINT: url }),
      log,
    );
    const dropped = (): number => bridge.metrics.eventsRejected.get({ reason: 'too_large' }) ?? 0;
    await until(
      () => bridge.delivery.deliveredTotal + dropped() >= EVENTS,
      'every record delivered or dropped',
      30_000,
    );
    await bridge.shutdown(Date.now() + 2000);
    const said = lines().filter(
      (l) => l.msg === 'collector refused a record it accepts neighbours of; it is dropped and counted as rejected',
    );
    const drops = dropped();
    // The simulator's mix has records above 1500 bytes (screenshots, bodies): several of them.
    expect(drops).toBeGreaterThan(2);
    expect(said).toHaveLength(drops);
    const errors = said.filter((l) => l.level === 50).map((l) => l.times);
    expect(errors).toEqual([1, ...Array.from({ length: Math.floor(drops / 50) }, (_, i) => (i + 1) * 50)]);
  });
});
