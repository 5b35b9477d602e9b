// A traces endpoint that answers 429 with a Retry-After (seconds, or an HTTP-date) for as long as the
// test says, while the records' endpoint is healthy. The bridge runs in this process on real
// sockets; a front before the receiver's /v1/traces answers the 429s and counts the requests. The
// spans must wait what the collector asked for, without a loop of requests (the front counts them:
// a request per batch per Retry-After, where the bridge's own 300 ms backoff would send several
// times that), the records must all arrive meanwhile, and once the 429s stop the spans arrive, none
// dropped.
import { afterEach, describe, expect, it } from 'vitest';
import { sleep, until } from '../../helpers/harness.js';
import { SESSION, text, tracesRefusal, type TracesRefusal } from '../../helpers/traces-refusal.js';

let t: TracesRefusal | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** FAST's exporter.concurrency, which the traces' exporter follows: requests out before a 429 is read. */
const CONCURRENCY = 3;
/** FAST's exporter.batch_max_records: spans per request. */
const BATCH = 200;
const WAIT_S = 1;
const WINDOW_MS = 3000;

describe('429 with Retry-After on /v1/traces only', () => {
  it.each([
    ['seconds', () => String(WAIT_S)],
    // An HTTP-date has whole seconds: one more so the wait is at least WAIT_S.
    ['an HTTP-date', () => new Date(Date.now() + (WAIT_S + 1) * 1000).toUTCString()],
  ])('Retry-After in %s: the spans wait that long, no request loop, records unaffected', async (_name, after) => {
    t = await tracesRefusal(() => text(429, { 'retry-after': after() }));
    const { bridge, session, h } = t;
    session.emit(300);
    session.end();
    await until(() => t!.requests() > 0, 'a traces request');
    const start = t.requests();
    await sleep(WINDOW_MS);
    // Within the window: a request per batch out (at most `concurrency`) per Retry-After, and the
    // ones out at its start; the bridge's own backoff (300 ms at most) would send four times that.
    const out = Math.min(CONCURRENCY, Math.ceil(bridge.spans!.queued / BATCH));
    expect(t.requests() - start).toBeLessThanOrEqual(out * (WINDOW_MS / 1000 / WAIT_S + 1));

    expect(h.received(SESSION)).toBe(session.lastSeq);
    expect(h.tally([SESSION])[0]).toMatchObject({ missing: 0 });
    expect(bridge.spans?.lastError).toBe('HTTP 429: refused by the front (429)');
    expect(h.receiver.spans).toHaveLength(0);
    // Said on the first failure and every 20th, not once per request.
    const failed = t.lines.filter((l) => l.msg.startsWith('span export failed'));
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.length).toBeLessThanOrEqual(2);

    const queued = bridge.spans!.queued;
    t.answer(() => undefined);
    await until(() => t!.spansReceived() >= queued, 'the queued spans received');
    await until(() => bridge.spans!.queued === 0, 'the span queue empty');
    expect(bridge.metrics.spansDropped.get({ reason: 'refused' }) ?? 0).toBe(0);
    expect(bridge.metrics.spansDropped.get({ reason: 'overflow' }) ?? 0).toBe(0);
  });
});
