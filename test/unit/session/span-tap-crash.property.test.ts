// Spans through a kill -9, as the pipeline and the spool handle them (docs/traces.md "After a crash"):
// batches are sealed at arbitrary events (the tap's state captured), their checkpoints written later
// (the state serialized then, with the spans not yet acknowledged), the traces endpoint acknowledges
// an arbitrary prefix of what was offered now and then, and the process dies at an arbitrary point.
// A tap made from the last written state, reading again from its checkpoint, must make the collector
// hold exactly the spans of an uninterrupted run: none missing, and a span sent twice byte-identical.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spanTapFactory, type SpanSink } from '../../../src/session/span-tap.js';
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

/** What happens after each event: nothing, a batch sealed, the last sealed checkpoint written, acknowledgements. */
const stepArb = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.constant({ kind: 'seal' as const }),
  fc.constant({ kind: 'write' as const }),
  fc.record({ kind: fc.constant('ack' as const), n: fc.integer({ min: 1, max: 4 }) }),
);

describe('span tap through a kill -9', () => {
  it('the restarted tap completes what was open and resends what was not acknowledged: the collector holds exactly the uninterrupted spans', () => {
    fc.assert(
      fc.property(
        fc.array(pageArb, { minLength: 1, maxLength: 4 }),
        fc.array(stepArb, { minLength: 1, maxLength: 80 }),
        fc.nat(),
        (pages, steps, cut) => {
          const envs = envelopes(lanes(pages).flat());
          const crash = cut % (envs.length + 1);
          const sink = endpoint();
          const tap = spanTapFactory(sink)(SESSION);
          let sealed: { checkpoint: number; write: () => string } | undefined;
          let stored: { checkpoint: number; text: string } | undefined;
          for (let i = 0; i < crash; i++) {
            tap.observe(envs[i]!, mapped(envs[i]!));
            const step = steps[i % steps.length]!;
            if (step.kind === 'seal') sealed = { checkpoint: i + 1, write: tap.checkpoint() };
            else if (step.kind === 'write' && sealed) stored = { checkpoint: sealed.checkpoint, text: sealed.write() };
            else if (step.kind === 'ack') sink.ack(step.n);
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
});
