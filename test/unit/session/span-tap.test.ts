// The seam between a session's path and its spans: records are pointed at their span before they
// are encoded, completed spans go to the sink encoded, a session end flushes the rest.
import { describe, expect, it } from 'vitest';
import {
  STATE_CHARS_PER_SECOND,
  STATE_WAIT_MAX_MS,
  captureWaitMs,
  spanTapFactory,
} from '../../../src/session/span-tap.js';
import { SpanMirror } from '../../../src/ingest/span-mirror.js';
import { decodeTracesRequest } from '../../../src/devkit/receiver/decode-traces.js';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import { joinBody, createRequestBuilder } from '../../../src/wire/otlp-request.js';
import { decodeProtobufLogsRequest } from '../../../src/devkit/receiver/decode.js';
import { PAGE_LOAD, SESSION, envelopes, mapped, req, type Step } from '../traces/script.js';

const rs = { resource: {}, scope: { name: 't', version: '1' } };

describe('span tap', () => {
  it('points records at their span and hands completed spans to the sink, encoded', () => {
    const offered: Buffer[] = [];
    const tap = spanTapFactory({ offer: (b) => offered.push(...b) })(SESSION);
    const encode = createRecordEncoder();
    const records: Buffer[] = [];
    for (const env of envelopes(PAGE_LOAD)) {
      const record = mapped(env);
      tap.observe(env, record);
      if (record !== null) records.push(encode(record));
    }
    expect(offered).toHaveLength(3); // the three requests; the page is still open
    tap.end();
    const spans = decodeTracesRequest(
      joinBody(createRequestBuilder('http/protobuf', rs, 'traces').build(offered)),
      'protobuf',
    );
    expect(spans).toHaveLength(4);
    const decoded = decodeProtobufLogsRequest(joinBody(createRequestBuilder('http/protobuf', rs).build(records)));
    const ids = new Set(spans.map((s) => `${s.traceId}/${s.spanId}`));
    for (const r of decoded) expect(ids.has(`${r.traceId}/${r.spanId}`)).toBe(true);
  });

  it('settled() waits for every span offered, the closing ones included, to leave the queue; the mirror of a worker session likewise', async () => {
    const owners: Array<[Buffer, { settled(span: Buffer): void }]> = [];
    const sink = {
      offer: (b: readonly Buffer[], o?: { settled(span: Buffer): void }) => b.forEach((x) => owners.push([x, o!])),
    };
    const taps = [spanTapFactory(sink)(SESSION), new SpanMirror(sink, undefined)];
    for (const t of taps) {
      owners.length = 0;
      let done = false;
      await t.settled(); // nothing offered yet
      if (t instanceof SpanMirror) t.received(undefined, [Buffer.from('a'), Buffer.from('b')]);
      else {
        for (const env of envelopes(PAGE_LOAD)) t.observe(env, mapped(env));
        t.end();
      }
      expect(owners.length).toBeGreaterThan(1);
      void t.settled().then(() => (done = true));
      for (const [span, o] of owners.slice(0, -1)) o.settled(span);
      await new Promise((r) => setImmediate(r));
      expect(done).toBe(false);
      const [last, o] = owners.at(-1)!;
      o.settled(last);
      await new Promise((r) => setImmediate(r));
      expect(done).toBe(true);
    }
  });

  it('a session removed for good flushes its open spans marked session_removed', () => {
    const offered: Buffer[] = [];
    const tap = spanTapFactory({ offer: (b) => offered.push(...b) })(SESSION);
    for (const env of envelopes(PAGE_LOAD)) tap.observe(env, mapped(env));
    offered.length = 0;
    tap.end('session_removed');
    const spans = decodeTracesRequest(
      joinBody(createRequestBuilder('http/protobuf', rs, 'traces').build(offered)),
      'protobuf',
    );
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes['browser.span.end_reason']).toBe('session_removed');
  });

  it('captures the open state once per line of its phase on its clock, and at once when told (a stop)', () => {
    // SESSION is of phase 2: with a 500 ms interval its lines are 200 ms past each half second.
    const clock = { t: 1000 };
    const tap = spanTapFactory({ offer: () => undefined }, { captureEveryMs: 500, now: () => clock.t })(SESSION);
    const [first, second] = envelopes(PAGE_LOAD);
    tap.observe(first!, mapped(first!));
    expect(tap.checkpoint()).toBeDefined(); // the first batch of a session
    clock.t = 1199;
    tap.observe(second!, mapped(second!));
    expect(tap.checkpoint()).toBeUndefined();
    tap.captureNext();
    expect(tap.checkpoint()).toBeDefined();
    expect(tap.checkpoint()).toBeUndefined(); // a forced capture is once
    clock.t = 1200;
    expect(tap.checkpoint()?.()).toContain('"open"');
    clock.t = 1699;
    expect(tap.checkpoint()).toBeUndefined();
  });

  it.each([
    // session (its phase), the clock when it began, the captures after its first (a batch every 100 ms)
    ['a (0)', 'a', 0, [1000, 2000, 3000, 4000]],
    ['s5 (0), begun later', 's5', 300, [1000, 2000, 3000, 4000]],
    ['f (1)', 'f', 700, [1200, 2200, 3200, 4200]],
    ['c (3)', 'c', 50, [650, 1650, 2650, 3650, 4650]],
  ])(
    'the sessions of one phase are captured together whenever each began, another phase its share of the interval later: %s',
    (_name, id, began, captures) => {
      const clock = { t: began };
      const tap = spanTapFactory({ offer: () => undefined }, { captureEveryMs: 1000, now: () => clock.t })(id);
      const at: number[] = [];
      for (; clock.t < 5000; clock.t += 100) if (tap.checkpoint()) at.push(clock.t);
      expect(at).toEqual([began, ...captures]);
    },
  );

  it.each([
    // interval, state characters, wait
    [5000, 0, 5000],
    [5000, 20 * 1024, 5000],
    [5000, 30 * 1024, 10_000], // 7.5 s of state: a whole number of intervals
    [5000, 40 * 1024, 10_000],
    [5000, 200 * 1024, 50_000],
    [5000, 10 * 1024 * 1024, STATE_WAIT_MAX_MS],
    [120_000, 10 * 1024 * 1024, 120_000], // a configured interval longer than the cap wins
    [7000, 10 * 1024 * 1024, 56_000], // the most intervals within the cap
    [0, 10 * 1024 * 1024, 0], // 0: every batch, whatever the size
  ])('captureWaitMs(%i, %i) = %i', (interval, chars, wait) => {
    expect(captureWaitMs(interval, chars)).toBe(wait);
  });

  it('a large open state is captured less often: a wait its size sets, from line to line of its phase', () => {
    // 400 requests that never finish: open spans, each kept in the state with its URL.
    const steps: Step[] = Array.from({ length: 400 }, (_, i): Step => [
      'network_request',
      i,
      req('L1', `r${i}`, `https://shop.example.com/api/items/${i}?page=${i}&sort=name`),
    ]);
    const clock = { t: 0 };
    const tap = spanTapFactory({ offer: () => undefined }, { captureEveryMs: 500, now: () => clock.t })(SESSION);
    for (const env of envelopes(steps)) tap.observe(env, mapped(env));
    const chars = (JSON.stringify((JSON.parse(tap.checkpoint()!()) as { open: unknown }).open) ?? '').length;
    const wait = captureWaitMs(500, chars);
    expect(wait).toBeGreaterThanOrEqual((chars * 1000) / STATE_CHARS_PER_SECOND);
    expect(wait).toBeGreaterThan(5000); // well past the 500 ms interval
    const at: number[] = [];
    for (clock.t = 100; clock.t <= 3 * wait; clock.t += 100) if (tap.checkpoint()) at.push(clock.t);
    // SESSION's lines are 200 ms past each half second: the next line, then one a wait apart.
    expect(at).toEqual([200, 200 + wait, 200 + 2 * wait]);
  });
});
