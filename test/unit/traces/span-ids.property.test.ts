// Exactly the same spans after any crash, and the same span ids in any interleaving (docs/traces.md
// "Ids"): the builder's state is saved as JSON at an arbitrary point, a new builder restored from it
// finishes the stream, and what both emit together is what one uninterrupted builder emits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSpanBuilder, type SpanBuilderState } from '../../../src/traces/span-builder.js';
import type { Envelope } from '../../../src/upstream/envelope.js';
import type { BridgeSpan, SpanRef } from '../../../src/vocabulary/span.js';
import { SESSION, envelopes, mapped, type Step } from './script.js';
import { lanes, pageArb } from './page-lanes.js';

interface Output {
  spans: BridgeSpan[];
  refs: Array<SpanRef | undefined>;
}

function feed(envs: readonly Envelope[], restored?: SpanBuilderState, stopAt = envs.length) {
  const builder = createSpanBuilder(SESSION, restored);
  const out: Output = { spans: [], refs: [] };
  for (const env of envs.slice(0, stopAt)) {
    const o = builder.observe(env, mapped(env));
    out.refs.push(o.ref);
    out.spans.push(...o.finished);
  }
  return { builder, out };
}

function whole(envs: readonly Envelope[]): Output {
  const { builder, out } = feed(envs);
  out.spans.push(...builder.end());
  return out;
}

describe('span ids', () => {
  it('a crash at any point, with the state saved as JSON, gives exactly the spans and refs of an uninterrupted run', () => {
    fc.assert(
      fc.property(fc.array(pageArb, { minLength: 1, maxLength: 4 }), fc.nat(), (pages, cut) => {
        const envs = envelopes(lanes(pages).flat());
        const k = cut % (envs.length + 1);
        const expected = whole(envs);
        const before = feed(envs, undefined, k);
        const saved = JSON.parse(JSON.stringify(before.builder.snapshot())) as SpanBuilderState;
        const after = feed(envs.slice(k), saved);
        after.out.spans.push(...after.builder.end());
        expect([...before.out.spans, ...after.out.spans]).toEqual(expected.spans);
        expect([...before.out.refs, ...after.out.refs]).toEqual(expected.refs);
      }),
      { numRuns: 150 },
    );
  });

  it('any interleaving of pages and requests gives the same set of span ids', () => {
    fc.assert(
      fc.property(
        fc.array(pageArb, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 200, maxLength: 200 }),
        (pages, picks) => {
          const ordered = lanes(pages);
          const queues = ordered.map((l) => [...l]);
          const shuffled: Step[] = [];
          let i = 0;
          while (queues.some((q) => q.length > 0)) {
            const open = queues.filter((q) => q.length > 0);
            shuffled.push(open[(picks[i++ % picks.length] ?? 0) % open.length]!.shift()!);
          }
          const ids = (o: Output) => new Set(o.spans.map((s) => `${s.traceId}/${s.spanId}/${s.parentSpanId ?? ''}`));
          expect(ids(whole(envelopes(shuffled)))).toEqual(ids(whole(envelopes(ordered.flat()))));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the state as JSON (reusing the untouched pages) is after every event the state as a whole, restored or not', () => {
    fc.assert(
      fc.property(fc.array(pageArb, { minLength: 1, maxLength: 4 }), fc.nat(), fc.nat(), (pages, cut, every) => {
        const envs = envelopes(lanes(pages).flat());
        const k = cut % (envs.length + 1);
        const step = 1 + (every % 3);
        let builder = createSpanBuilder(SESSION);
        envs.forEach((env, i) => {
          if (i === k) builder = createSpanBuilder(SESSION, JSON.parse(builder.snapshotJson()) as SpanBuilderState);
          builder.observe(env, mapped(env));
          // Snapshots taken every `step` events, as batches of one to three events would.
          if (i % step === 0) expect(builder.snapshotJson()).toBe(JSON.stringify(builder.snapshot()));
        });
        expect(builder.snapshotJson()).toBe(JSON.stringify(builder.snapshot()));
      }),
      { numRuns: 150 },
    );
  });
});
