// Spans through a kill -9, as the pipeline and the spool handle them (docs/traces.md "After a crash"):
// batches are sealed at arbitrary events (the tap's state captured), their checkpoints written later
// (the state serialized then, with the spans not yet acknowledged), the traces endpoint acknowledges
// an arbitrary prefix of what was offered now and then, and the process dies at an arbitrary point.
// A tap made from the last written state, reading again from its checkpoint, must make the collector
// hold exactly the spans of an uninterrupted run: none missing, and a span sent twice byte-identical.
//
// The tap captures its state at most every `captureEveryMs` of its clock: a seal in between carries
// no state, and the checkpoint written is the last sealed one that does (store/ledger.ts). A stop
// captures whatever the interval (SessionRecords.capture). The second property pins what this costs
// after a crash: only events of the last capture interval are read again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { captureWaitMs, spanTapFactory, type SpanSink } from '../../../src/session/span-tap.js';
import type { Envelope } from '../../../src/upstream/envelope.js';
import { SESSION, envelopes, mapped } from '../traces/script.js';
import { lanes, pageArb } from '../traces/page-lanes.js';

/** A traces endpoint that acknowledges when told to; `collected` is what it accepted, hex-encoded. */
function endpoint(): SpanSink & { ack(n: number): void; ackAll(): void; collected: Set<string> } {
  const queue: Array<{ span: Buffer; owner: { settled(span: Buffer): void } | undefined }> = [];
  const collected = new Set<string>();
  const ack = (n: number): void => {
    for (const q of queue.splice(0, n)) {
      collected.add(q.span.toString('hex'));
      q.owner?.settled(q.span);
    }
  };
  return {
    offer: (spans, owner) => queue.push(...spans.map((span) => ({ span, owner }))),
    ack,
    ackAll: () => ack(queue.length),
    collected,
  };
}

function uninterrupted(envs: readonly Envelope[]): Set<string> {
  const sink = endpoint();
  const tap = spanTapFactory(sink)(SESSION);
  for (const env of envs) tap.observe(env, mapped(env));
  tap.end();
  sink.ackAll();
  return sink.collected;
}

/**
 * What happens after each event: nothing, a batch sealed, a forced capture sealed (a stop), the
 * last sealed checkpoint written, acknowledgements; and how far the tap's clock moves before it.
 */
const stepArb = fc.record({
  dt: fc.integer({ min: 0, max: 400 }),
  act: fc.oneof(
    fc.constant({ kind: 'none' as const }),
    fc.constant({ kind: 'seal' as const }),
    fc.constant({ kind: 'stop' as const }),
    fc.constant({ kind: 'write' as const }),
    fc.record({ kind: fc.constant('ack' as const), n: fc.integer({ min: 1, max: 4 }) }),
  ),
});

/** 0: every seal captures (the rule before the interval); else a few events to a few seconds of them. */
const intervalArb = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3000 }));

/** A tap on a clock the test moves. */
function clocked(
  sink: SpanSink,
  captureEveryMs: number,
): { tap: ReturnType<ReturnType<typeof spanTapFactory>>; clock: { t: number } } {
  const clock = { t: 0 };
  const tap = spanTapFactory(sink, { captureEveryMs, now: () => clock.t })(SESSION);
  return { tap, clock };
}

describe('span tap through a kill -9', () => {
  it('the restarted tap completes what was open and resends what was not acknowledged: the collector holds exactly the uninterrupted spans', () => {
    fc.assert(
      fc.property(
        fc.array(pageArb, { minLength: 1, maxLength: 4 }),
        fc.array(stepArb, { minLength: 1, maxLength: 80 }),
        intervalArb,
        fc.nat(),
        (pages, steps, interval, cut) => {
          const envs = envelopes(lanes(pages).flat());
          const crash = cut % (envs.length + 1);
          const sink = endpoint();
          const { tap, clock } = clocked(sink, interval);
          // The last sealed position that carries a state: the only one its checkpoint may move to.
          let sealed: { checkpoint: number; write: () => string } | undefined;
          let stored: { checkpoint: number; text: string } | undefined;
          for (let i = 0; i < crash; i++) {
            const { dt, act } = steps[i % steps.length]!;
            clock.t += dt;
            tap.observe(envs[i]!, mapped(envs[i]!));
            if (act.kind === 'stop') tap.captureNext();
            if (act.kind === 'seal' || act.kind === 'stop') {
              const write = tap.checkpoint();
              if (act.kind === 'stop') expect(write).toBeDefined();
              if (write) sealed = { checkpoint: i + 1, write };
            } else if (act.kind === 'write' && sealed) stored = { checkpoint: sealed.checkpoint, text: sealed.write() };
            else if (act.kind === 'ack') sink.ack(act.n);
          }
          // kill -9: whatever was not acknowledged is gone with the process; the store keeps `stored`.
          const after = endpoint();
          const restarted = spanTapFactory(after)(SESSION, stored?.text);
          for (const env of envs.slice(stored?.checkpoint ?? 0)) restarted.observe(env, mapped(env));
          restarted.end();
          after.ackAll();
          const seen = new Set([...sink.collected, ...after.collected]);
          expect(seen).toEqual(uninterrupted(envs));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('with a batch sealed and written after every event, a crash reads again only events of the last capture interval', () => {
    fc.assert(
      fc.property(
        fc.array(pageArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 80 }),
        intervalArb,
        fc.nat(),
        (pages, dts, interval, cut) => {
          const envs = envelopes(lanes(pages).flat());
          const crash = 1 + (cut % envs.length);
          const { tap, clock } = clocked(endpoint(), interval);
          const observedAt: number[] = [];
          let stored = 0;
          // The wait the last capture set: the interval, longer for a large open state.
          let wait = interval;
          for (let i = 0; i < crash; i++) {
            clock.t += dts[i % dts.length]!;
            observedAt.push(clock.t);
            tap.observe(envs[i]!, mapped(envs[i]!));
            const write = tap.checkpoint();
            if (write) {
              stored = i + 1;
              const { open } = JSON.parse(write()) as { open: unknown };
              wait = captureWaitMs(interval, JSON.stringify(open).length);
            }
          }
          // Read again after the restart: from the stored checkpoint to the crash. Each was observed
          // after the last capture, and a seal at the crash would have captured were it older than the wait.
          for (let i = stored; i < crash; i++) expect(clock.t - observedAt[i]!).toBeLessThan(wait);
          if (interval === 0) expect(stored).toBe(crash);
        },
      ),
      { numRuns: 300 },
    );
  });
});
