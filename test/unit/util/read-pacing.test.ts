import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HELD_BACK_SHARE,
  MIN_BUSY_READS,
  ReadPacer,
  SUSPEND_MS,
  type PacingClock,
} from '../../../src/util/read-pacing.js';

/** A clock the test moves: sleeps advance it, checks run when the test ends a turn. */
function fakeClock(): PacingClock & { t: number; pending: Array<() => void>; slept: number[]; endTurn(): void } {
  const c = {
    t: 1000,
    pending: [] as Array<() => void>,
    slept: [] as number[],
    now: () => c.t,
    sleep: (ms: number) => {
      c.slept.push(ms);
      c.t += ms;
    },
    afterIo: (fn: () => void) => void c.pending.push(fn),
    endTurn: () => {
      const fns = c.pending.splice(0);
      for (const fn of fns) fn();
    },
  };
  return c;
}

describe('read pacing', () => {
  it.each([
    // reads in the turn, whether one filled its buffer, ms the turn took → ms slept
    ['a busy turn of small reads waits out the interval', 50, false, 10, 90],
    ['a busy turn that took the whole interval waits no more', 500, false, 100, 0],
    ['a turn with a full read (a backlog) never waits', 50, true, 10, 0],
    ['a few reads never make a turn busy, however short', MIN_BUSY_READS - 1, false, 0.5, 0],
    ['reads slower than the busy rate do not wait', 5, false, 50, 0],
  ])('%s', (_why, reads, full, turnMs, slept) => {
    const clock = fakeClock();
    const pacer = new ReadPacer(100, clock);
    for (let i = 0; i < reads; i++) pacer.read(full && i === 0);
    clock.t += turnMs;
    expect(clock.pending).toHaveLength(1); // one check a turn, however many reads
    clock.endTurn();
    expect(clock.slept.reduce((a, b) => a + b, 0)).toBeCloseTo(slept);
    expect(pacer.counts).toEqual({ reads, sleeps: slept > 0 ? 1 : 0, sleptMs: slept });
  });

  /** One turn: `reads` reads, the first `full` of them full, taking `ms`; returns what it slept. */
  function turn(clock: ReturnType<typeof fakeClock>, pacer: ReadPacer, reads: number, full: number, ms = 10): number {
    for (let i = 0; i < reads; i++) pacer.read(i < full);
    clock.t += ms;
    const before = clock.slept.length;
    clock.endTurn();
    return clock.slept.slice(before).reduce((a, b) => a + b, 0);
  }

  it('a sleep that held the streams back (many full reads the turn after) turns pacing off for a while, extended by every such turn', () => {
    const clock = fakeClock();
    const pacer = new ReadPacer(100, clock);
    expect(turn(clock, pacer, 50, 0)).toBe(90);
    // The streams' bytes piled up during the sleep: a catch-up held back by its TCP windows.
    expect(turn(clock, pacer, 8, 6)).toBe(0);
    // Small reads again (the worker is faster than the sender): no sleep while suspended.
    const suspendedAt = clock.t;
    expect(turn(clock, pacer, 50, 0)).toBe(0);
    clock.t = suspendedAt + SUSPEND_MS / 2;
    expect(turn(clock, pacer, 40, 10)).toBe(0); // a quarter full: extends the suspension
    const extendedAt = clock.t;
    clock.t = extendedAt + SUSPEND_MS - 20;
    expect(turn(clock, pacer, 50, 0)).toBe(0);
    // Once it has run out, a busy turn sleeps again.
    clock.t = extendedAt + SUSPEND_MS;
    expect(turn(clock, pacer, 50, 0)).toBeGreaterThan(0);
  });

  it.each([
    ['one stream of many filled a read after the sleep (a screenshot and a few events)', 1000, 2],
    ['just under a quarter of the reads were full', 100, Math.ceil(100 * HELD_BACK_SHARE) - 1],
  ])('%s: pacing goes on', (_why, reads, full) => {
    const clock = fakeClock();
    const pacer = new ReadPacer(100, clock);
    expect(turn(clock, pacer, 1000, 0)).toBe(90);
    expect(turn(clock, pacer, reads, full)).toBe(0); // a turn with a full read never sleeps
    expect(turn(clock, pacer, 1000, 0)).toBeGreaterThan(0);
  });

  it('full reads that follow no sleep (a big frame now and then) do not turn pacing off', () => {
    const clock = fakeClock();
    const pacer = new ReadPacer(100, clock);
    clock.t += 1000;
    expect(turn(clock, pacer, 50, 50, 1)).toBe(0);
    expect(turn(clock, pacer, 50, 0)).toBeGreaterThan(0);
  });

  it('schedules nothing while no stream reads: an idle worker is never woken', () => {
    const clock = fakeClock();
    new ReadPacer(100, clock);
    clock.t += 10_000;
    expect(clock.pending).toHaveLength(0);
  });

  it('under any turns, never waits longer than the interval, never after a full read, and a wait ends one interval after the last check', () => {
    const turn = fc.record({
      reads: fc.integer({ min: 1, max: 300 }),
      // Most turns without a full read (so that there are sleeps to check), some with a few or many.
      full: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 300 })),
      ms: fc.double({ min: 0, max: 250, noNaN: true }),
      idleBefore: fc.double({ min: 0, max: 300, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.array(turn, { maxLength: 30 }), (interval, turns) => {
        const clock = fakeClock();
        const pacer = new ReadPacer(interval, clock);
        let lastCheckEnd = clock.t;
        let sleptBefore = false;
        let heldBackAt: number | undefined;
        for (const t of turns) {
          clock.t += t.idleBefore;
          const fulls = Math.min(t.full, t.reads);
          for (let i = 0; i < t.reads; i++) pacer.read(i >= t.reads - fulls);
          clock.t += t.ms;
          const before = clock.slept.length;
          clock.endTurn();
          const sleptNow = clock.slept.length > before;
          if (sleptNow) {
            const ms = clock.slept.at(-1)!;
            expect(ms).toBeLessThanOrEqual(interval);
            expect(fulls).toBe(0);
            expect(clock.t).toBeCloseTo(lastCheckEnd + interval);
            // Never within SUSPEND_MS of a full read that came right after a sleep.
            expect(clock.t - (heldBackAt ?? -Infinity)).toBeGreaterThanOrEqual(SUSPEND_MS);
          }
          const heldBack = fulls > 0 && fulls >= t.reads * HELD_BACK_SHARE;
          if (heldBack && (sleptBefore || clock.t - (heldBackAt ?? -Infinity) < SUSPEND_MS)) heldBackAt = clock.t;
          sleptBefore = sleptNow;
          lastCheckEnd = clock.t;
        }
        expect(pacer.counts.reads).toBe(turns.reduce((n, t) => n + t.reads, 0));
      }),
    );
  });
});
