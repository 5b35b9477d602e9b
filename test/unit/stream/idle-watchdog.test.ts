// The idle watchdog fires only after idleMs without a byte, however the bytes fall relative to its
// timer; a pause (back-pressure we caused) keeps it quiet, a resume counts the idle time afresh.
// On a fake clock (timers and performance.now() move together, only when told): the instants are
// exact, whatever the load on the machine.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdleWatchdog } from '../../../src/stream/idle-watchdog.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * Moves the fake clock a millisecond at a time, letting the real immediates run after each: the
 * watchdog gives its verdict one turn after its timer (setImmediate, left real), as a real loop
 * does before any later timer.
 */
async function advance(ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    vi.advanceTimersByTime(1);
    await new Promise((r) => setImmediate(r));
  }
}

function watch(idleMs: number): { dog: IdleWatchdog; firedAt: () => number | undefined } {
  let at: number | undefined;
  const dog = new IdleWatchdog(idleMs, () => {
    expect(at, 'fires once').toBeUndefined();
    at = performance.now();
  });
  return { dog, firedAt: () => at };
}

describe('IdleWatchdog', () => {
  it('stays quiet while bytes keep coming, and fires exactly idleMs after the last one', async () => {
    const { dog, firedAt } = watch(80);
    for (let i = 0; i < 8; i++) {
      await advance(30);
      dog.touch();
    }
    const last = performance.now();
    await advance(79);
    expect(firedAt()).toBeUndefined();
    await advance(1);
    expect(firedAt()).toBe(last + 80);
  });

  it.each([1, 20, 49, 50, 51, 79])('a byte %i ms after the timer was armed moves the deadline with it', async (at) => {
    const start = performance.now();
    const { dog, firedAt } = watch(50);
    await advance(at);
    if (at < 50) dog.touch();
    await advance(1000);
    expect(firedAt()! - start).toBe(at < 50 ? at + 50 : 50);
  });

  it('fires when nothing ever arrives', async () => {
    const { firedAt } = watch(50);
    const start = performance.now();
    await advance(49);
    expect(firedAt()).toBeUndefined();
    await advance(1);
    expect(firedAt()).toBe(start + 50);
  });

  it('does not fire while paused, and counts afresh from a resume', async () => {
    const { dog, firedAt } = watch(50);
    dog.pause();
    await advance(10_000);
    expect(firedAt()).toBeUndefined();
    dog.resume();
    const resumed = performance.now();
    await advance(49);
    expect(firedAt()).toBeUndefined();
    await advance(1);
    expect(firedAt()).toBe(resumed + 50);
  });

  it.each([1, 37, 50, 51, 99, 125])(
    'a resume %i ms after the paused timer fired counts the idle time from the resume',
    async (after) => {
      const { dog, firedAt } = watch(50);
      await advance(10);
      dog.pause();
      await advance(40 + after);
      dog.resume();
      const resumed = performance.now();
      await advance(49);
      expect(firedAt()).toBeUndefined();
      await advance(1);
      expect(firedAt()).toBe(resumed + 50);
    },
  );

  it('holds and resumes touch no timer: one stays armed however often the stream is held', async () => {
    const { dog, firedAt } = watch(50);
    const arms = vi.spyOn(globalThis, 'setTimeout');
    const clears = vi.spyOn(globalThis, 'clearTimeout');
    for (let i = 0; i < 1000; i++) {
      dog.pause();
      dog.resume();
    }
    expect(arms).not.toHaveBeenCalled();
    expect(clears).not.toHaveBeenCalled();
    arms.mockRestore();
    clears.mockRestore();
    await advance(20);
    dog.pause();
    await advance(20);
    dog.resume();
    const resumed = performance.now();
    await advance(1000);
    expect(firedAt()).toBe(resumed + 50);
  });

  it('a byte read in the turn its timer came due in counts: the verdict waits for the poll phase', async () => {
    // The process was stopped past idleMs: on SIGCONT the timer runs first, then the poll phase
    // reads what waited in the socket (here the timer below, due at the same instant, after it).
    const start = performance.now();
    const { dog, firedAt } = watch(50);
    setTimeout(() => dog.touch(), 50);
    await advance(50);
    expect(firedAt()).toBeUndefined();
    await advance(49);
    expect(firedAt()).toBeUndefined();
    await advance(1);
    expect(firedAt()).toBe(start + 100);
  });

  it('never fires once stopped, also between its timer and its verdict', async () => {
    const { dog, firedAt } = watch(30);
    setTimeout(() => dog.stop(), 30);
    await advance(10_000);
    expect(firedAt()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never fires once stopped', async () => {
    const { dog, firedAt } = watch(30);
    await advance(29);
    dog.stop();
    await advance(10_000);
    expect(firedAt()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
