// The ledger of the overflow mode: a session's checkpoint moves only over the settled run at the
// head of its positions, once per position, never backwards.
import { queryObjects } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../../src/store/ledger.js';

const at = (sessionId: string, checkpoint: number, epoch = 0) => ({ sessionId, checkpoint, epoch });

describe('Ledger', () => {
  it('moves a checkpoint only over the settled run at the head, whatever order acknowledgements come in', () => {
    const l = new Ledger();
    l.hold(at('a', 10), -1);
    l.hold(at('a', 20), -2);
    l.hold(at('a', 25), null); // filtered events after the second batch
    l.hold(at('a', 30), -3);
    expect(l.pending()).toEqual([]);
    expect(l.settle(-2)).toBe(true);
    expect(l.pending()).toEqual([]); // -1 is still in flight
    l.settle(-1);
    expect(l.pending()).toEqual([at('a', 25)]);
    l.written([at('a', 25)], 0);
    expect(l.dirtyCount).toBe(0);
    expect(l.holds('a')).toBe(true);
    l.settle(-3);
    expect(l.pending()).toEqual([at('a', 30)]);
    expect(l.holds('a')).toBe(false);
  });

  it('previews what a spill makes durable without changing anything', () => {
    const l = new Ledger();
    l.hold(at('a', 1), -1);
    l.hold(at('a', 2), -2);
    l.hold(at('b', 7), -3);
    expect(l.pending(new Set([-1, -3]))).toEqual([at('a', 1), at('b', 7)]);
    expect(l.pending(new Set([-2]))).toEqual([]); // -1 before it is neither delivered nor spilled
    expect(l.dirtyCount).toBe(0);
  });

  it('a position with nothing held before it is durable at once (filtered events alone)', () => {
    const l = new Ledger();
    l.hold(at('a', 4), null);
    expect(l.pending()).toEqual([at('a', 4)]);
  });

  it('never moves back, and a write superseded meanwhile stays dirty', () => {
    const l = new Ledger();
    l.hold(at('a', 50), null);
    l.written([at('a', 50)], 0);
    l.hold(at('a', 40), null); // a session followed again from an older checkpoint
    expect(l.pending()).toEqual([]);
    l.hold(at('a', 60), null);
    const written = l.pending();
    l.hold(at('a', 70), null);
    l.written(written, 0);
    expect(l.pending()).toEqual([at('a', 70)]);
    l.hold(at('a', 1, 1), null); // a new service epoch is ahead of any seq of the last one
    expect(l.pending()).toEqual([at('a', 1, 1)]);
  });

  it('writes a move to the same position again only when it carries a span state (a session end closed its spans)', () => {
    const l = new Ledger();
    l.hold(at('a', 50), null);
    l.written([at('a', 50)], 0);
    l.hold(at('a', 50), null);
    expect(l.pending()).toEqual([]);
    const ended = { ...at('a', 50), spans: () => '{"v":1}' };
    l.hold(ended, null);
    expect(l.pending()).toEqual([ended]);
    l.written([ended], 0);
    l.hold({ ...at('a', 49), spans: () => '{"v":1}' }, null); // never back, state or not
    expect(l.pending()).toEqual([]);
  });

  it('traces on: the checkpoint moves only to positions whose span state was captured, over those that were not', () => {
    const l = new Ledger();
    const bare = (checkpoint: number) => ({ ...at('a', checkpoint), uncaptured: true as const });
    l.hold(bare(5), null); // nothing held before it, yet no state: it stays where it is
    expect(l.pending()).toEqual([]);
    l.hold(at('a', 10), -1);
    l.hold(bare(20), -2);
    l.hold(bare(25), null);
    expect(l.pending(new Set([-1, -2]))).toEqual([at('a', 10)]); // a spill of both makes 10 durable, not 20
    l.settle(-1);
    l.settle(-2);
    expect(l.pending()).toEqual([at('a', 10)]);
    expect(l.holds('a')).toBe(false);
    l.hold(bare(30), -3);
    l.hold(at('a', 40), -4);
    l.settle(-4);
    expect(l.pending()).toEqual([at('a', 10)]); // -3 before it is still in flight
    l.settle(-3);
    expect(l.pending()).toEqual([at('a', 40)]);
  });

  it("traces on: an uncaptured move that names its batch's captured position moves the checkpoint there", () => {
    const l = new Ledger();
    const earlier = { ...at('a', 12), spans: () => '{"v":1}' };
    l.hold({ ...at('a', 15), uncaptured: true, capturedBefore: earlier }, -1);
    expect(l.pending()).toEqual([]);
    expect(l.pending(new Set([-1]))).toEqual([earlier]); // a spill makes 12 durable, not 15
    l.settle(-1);
    expect(l.pending()).toEqual([earlier]);
    l.hold({ ...at('a', 18), uncaptured: true, capturedBefore: { ...at('a', 17), spans: () => '{"v":2}' } }, null);
    expect(l.pending().map((u) => u.checkpoint)).toEqual([17]);
  });

  it('forgets sessions given up: their segments are unknown, their moves unwritten', () => {
    const l = new Ledger();
    l.hold(at('a', 1), -1);
    l.hold(at('b', 1), null);
    l.forget(new Set(['a', 'b']));
    expect(l.settle(-1)).toBe(false);
    expect(l.pending()).toEqual([]);
    expect(l.holds('a')).toBe(false);
  });

  it('dates the oldest move not yet written: a write takes it forward to when it was taken, or clears it', () => {
    let now = 1000;
    const l = new Ledger(() => now);
    expect(l.unwrittenSince).toBeUndefined();
    l.hold(at('a', 1), null);
    now = 1500;
    l.hold(at('b', 1), null);
    expect(l.unwrittenSince).toBe(1000); // the oldest, not the newest
    const taken = l.pending();
    now = 1800;
    l.hold(at('a', 2), null); // moved while the write was under way
    now = 2500;
    l.written(taken, 1600);
    expect(l.unwrittenSince).toBe(1600); // what is still dirty moved after the write was taken
    l.written(l.pending(), 2600);
    expect(l.unwrittenSince).toBeUndefined();
    l.hold(at('a', 3), -1);
    l.settle(-1);
    expect(l.unwrittenSince).toBe(2500);
    l.forget(new Set(['a']));
    expect(l.unwrittenSince).toBeUndefined();
  });

  it('forgets an ended session once its position is written, and keeps one still held or unwritten', () => {
    const l = new Ledger();
    l.hold(at('a', 10), -1);
    l.hold(at('b', 5), null);
    l.release('a'); // still held: its records are in memory
    l.release('b'); // its move is not written yet
    expect(l.sessionsKnown).toBe(2);
    l.settle(-1);
    l.written(l.pending(), 0);
    l.release('a');
    l.release('b');
    expect(l.sessionsKnown).toBe(0);
    // Followed again from its stored checkpoint: it moves on from there as a new session does.
    l.hold(at('a', 12), null);
    expect(l.pending()).toEqual([at('a', 12)]);
  });

  it("keeps a session's position, not the span state its update carried", () => {
    // The span state of a session read in a worker holds the worker's mirror of its spans; kept with
    // the position, every session ever followed stayed reachable (2.9 KB each in a churn of sessions).
    class SpanStateMarker {
      write(): string {
        return '{}';
      }
    }
    const l = new Ledger();
    for (let i = 0; i < 50; i++) {
      const marker = new SpanStateMarker();
      l.hold({ ...at(`s${i}`, 1), spans: () => marker.write() }, null);
    }
    l.written(l.pending(), 0);
    expect(l.sessionsKnown).toBe(50);
    expect(queryObjects(SpanStateMarker, { format: 'count' })).toBe(0);
  });
});
