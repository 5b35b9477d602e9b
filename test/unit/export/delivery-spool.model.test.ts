// Delivery and the spool against a model (Vector's disk buffer is tested this way): random
// sequences of collector answers, commits, crashes and restarts, over a real SQLite spool file, then
// checked against what must have happened:
//   - every committed record the collector can take was accepted at least once (at-least-once), or
//     named as rejected by the collector's own partial success;
//   - a record is dropped as refused only when it is one the collector cannot take (a poison
//     record): a collector that refuses everything for a while costs nothing;
//   - after the last restart, with the collector healthy, the spool empties;
//   - with backoffs of ten minutes and more, it empties too once one request is accepted: the
//     workers asleep in a backoff of their own are woken by that success, one after the other
//     (only the wake can explain a delivery before the test ends).
// The collector's answers (docs/operations.md "Collector answers"): 200, 200 with partial success,
// 400 for everything, 400 for requests carrying a poison record, 413 above a size, 429/503 with
// Retry-After, timeouts, connection resets.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExportOutcome } from '../../../src/export/otlp-transport.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import { appendSeq, openTestSpool, scriptedTransport, testDelivery } from '../../helpers/delivery-fixture.js';
import { memoryTmpdir } from '../../helpers/memory-tmpdir.js';

type Mode = 'ok' | 'partial' | 'refuse_all' | 'too_large' | 'throttle' | 'unavailable' | 'timeout' | 'reset';
type Step =
  | { kind: 'collector'; mode: Mode }
  | { kind: 'commit'; records: number }
  | { kind: 'run'; ms: number }
  | { kind: 'crash' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .constantFrom<Mode>('ok', 'partial', 'refuse_all', 'too_large', 'throttle', 'unavailable', 'timeout', 'reset')
      .map((mode) => ({ kind: 'collector' as const, mode })),
  },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 12 }).map((records) => ({ kind: 'commit' as const, records })) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 40 }).map((ms) => ({ kind: 'run' as const, ms })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
);

/** The collector: answers by mode; a poison record is refused (400) in any request that carries it. */
class Collector {
  mode: Mode = 'ok';
  readonly accepted = new Map<number, number>();
  /** Records the collector itself dropped and named in a partial success. */
  readonly partialDropped = new Set<number>();
  constructor(private readonly poison: ReadonlySet<number>) {}

  answer(seqs: number[]): ExportOutcome {
    switch (this.mode) {
      case 'refuse_all':
        return { kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400: wrong tenant' };
      case 'throttle':
        return { kind: 'retryable', status: seqs.length % 2 ? 429 : 503, retryAfterMs: 2, message: 'HTTP 503' };
      case 'unavailable':
        return { kind: 'retryable', status: 503, message: 'HTTP 503' };
      case 'timeout':
        return { kind: 'retryable', timeoutMs: 10_000, message: 'timeout after 10 s' };
      case 'reset':
        return { kind: 'retryable', message: 'ECONNRESET' };
      default:
        break;
    }
    if (this.mode === 'too_large' && seqs.length > 3)
      return { kind: 'failure', status: 413, refused: 'too_large', message: 'HTTP 413' };
    if (seqs.some((s) => this.poison.has(s)))
      return { kind: 'failure', status: 400, refused: 'invalid', message: 'HTTP 400: bad record' };
    let rejected = 0;
    for (const [i, s] of seqs.entries()) {
      if (this.mode === 'partial' && i === seqs.length - 1 && seqs.length > 1) {
        this.partialDropped.add(s);
        rejected = 1;
        continue;
      }
      this.accepted.set(s, (this.accepted.get(s) ?? 0) + 1);
    }
    return { kind: 'success', rejected };
  }
}

/** How delivery is set up: the default is short backoffs; `long` backs off ten minutes and more. */
interface Shape {
  backoff: { initialMs: number; maxMs: number };
  concurrency: number;
  batchMaxRecords: number;
}
const SHORT: Shape = { backoff: { initialMs: 1, maxMs: 5 }, concurrency: 2, batchMaxRecords: 5 };
// At most two commits before recovery, each one batch: one of the three workers is always free to
// take the record committed after recovery, whose success starts the chain of wakes.
const LONG: Shape = { backoff: { initialMs: 20 * 60_000, maxMs: 30 * 60_000 }, concurrency: 3, batchMaxRecords: 100 };

async function runScenario(steps: Step[], poison: ReadonlySet<number>, shape: Shape = SHORT): Promise<void> {
  const dir = mkdtempSync(join(memoryTmpdir(), 'bridge-model-'));
  const collector = new Collector(poison);
  const facts: Fact[] = [];
  const transport = scriptedTransport('http://collector.model/v1/logs', async (seqs) => {
    await new Promise((r) => setTimeout(r, 1));
    return collector.answer(seqs);
  });
  const open = async () => {
    const store = await openSqliteStore(join(dir, 'bridge.db'));
    const spool = await openTestSpool(store, { maxBytes: 1 << 26, memoryMaxBytes: 4096, commitIntervalMs: 1000 });
    const delivery = testDelivery(spool, transport, {
      batchMaxRecords: shape.batchMaxRecords,
      batchMaxBytes: 1 << 20,
      concurrency: shape.concurrency,
      backoff: shape.backoff,
      emit: (f) => facts.push(f),
    });
    delivery.start();
    return { store, spool, delivery };
  };
  let seq = 0;
  const committed: number[] = [];
  let bridge = await open();
  try {
    for (const s of steps) {
      if (s.kind === 'collector') collector.mode = s.mode;
      else if (s.kind === 'commit') {
        for (let i = 0; i < s.records; i++) {
          seq++;
          appendSeq(bridge.spool, seq);
          committed.push(seq);
        }
        expect(await bridge.spool.flush()).toBe(true);
      } else if (s.kind === 'run') await new Promise((r) => setTimeout(r, s.ms));
      else {
        // kill -9: requests in flight are abandoned (their answers may still arrive), nothing is acknowledged.
        await bridge.delivery.stop(Date.now());
        await bridge.store.close();
        bridge = await open();
      }
    }
    // The collector recovers (poison records stay poison), one more record is committed; everything must go out.
    collector.mode = 'ok';
    seq++;
    appendSeq(bridge.spool, seq);
    committed.push(seq);
    expect(await bridge.spool.flush()).toBe(true);
    const end = Date.now() + 10_000;
    while (!bridge.spool.idle && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    expect(bridge.spool.idle, `spool left ${JSON.stringify(bridge.spool.spooled)}`).toBe(true);
  } finally {
    await bridge.delivery.stop(Date.now());
    await bridge.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  // The model.
  const lost = committed.filter(
    (s) => !poison.has(s) && !collector.accepted.has(s) && !collector.partialDropped.has(s),
  );
  expect(lost, 'committed records neither accepted nor named in a partial success').toEqual([]);
  for (const s of poison) expect(collector.accepted.has(s)).toBe(false);
  const refused = facts.filter(
    (f): f is Extract<Fact, { f: 'records_rejected' }> => f.f === 'records_rejected' && f.reason !== 'partial_success',
  );
  const refusedCount = refused.reduce((n, f) => n + f.count, 0);
  const poisonCommitted = committed.filter((s) => poison.has(s)).length;
  // Dropped only when proven: never more than the poison records (a crash may make one go twice).
  expect(refusedCount).toBeLessThanOrEqual(poisonCommitted * (1 + steps.filter((s) => s.kind === 'crash').length));
  if (poisonCommitted === 0) expect(refusedCount).toBe(0);
}

describe('delivery and spool against a model', () => {
  it('random collector answers, commits, crashes and restarts: nothing lost, nothing dropped without proof', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 120 }), { maxLength: 3 }),
        async (steps, poison) => runScenario(steps, new Set(poison)),
      ),
      { numRuns: 40, endOnFailure: true },
    );
  }, 240_000);

  it('backoffs of minutes: after recovery, the first success wakes the workers that hold batches', async () => {
    // Failures that the bridge backs off from on its own (no Retry-After, no refusal): what a wake may cut short.
    const failing = fc
      .constantFrom<Mode>('ok', 'partial', 'unavailable', 'timeout', 'reset')
      .map((mode) => ({ kind: 'collector' as const, mode }));
    const longStep: fc.Arbitrary<Step> = fc.oneof(
      { weight: 3, arbitrary: failing },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 40 }).map((ms) => ({ kind: 'run' as const, ms })) },
      { weight: 1, arbitrary: fc.constant({ kind: 'crash' as const }) },
    );
    const commit = fc.integer({ min: 1, max: 12 }).map((records) => ({ kind: 'commit' as const, records }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(longStep, { maxLength: 8 }),
        commit,
        fc.array(longStep, { maxLength: 8 }),
        commit,
        fc.array(longStep, { maxLength: 8 }),
        async (a, c1, b, c2, c) => runScenario([...a, c1, ...b, c2, ...c], new Set(), LONG),
      ),
      { numRuns: 25, endOnFailure: true },
    );
  }, 120_000);

  it('a collector that refuses everything drops nothing, however long', async () => {
    await runScenario(
      [
        { kind: 'collector', mode: 'refuse_all' },
        { kind: 'commit', records: 12 },
        { kind: 'run', ms: 150 },
        { kind: 'crash' },
        { kind: 'run', ms: 100 },
      ],
      new Set(),
    );
  }, 30_000);
});
