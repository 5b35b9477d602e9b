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

function watch(idleMs: number): { dog: IdleWatchdog; firedAt: () => number | undefined } {
  let at: number | undefined;
  const dog = new IdleWatchdog(idleMs, () => {
    expect(at, 'fires once').toBeUndefined();
    at = performance.now();
  });
  return { dog, firedAt: () => at };
}

describe('IdleWatchdog', () => {
  it('stays quiet while bytes keep coming, and fires exactly idleMs after the last one', () => {
    const { dog, firedAt } = watch(80);
    for (let i = 0; i < 8; i++) {
      vi.advanceTimersByTime(30);
      dog.touch();
    }
    const last = performance.now();
    vi.advanceTimersByTime(79);
    expect(firedAt()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(firedAt()).toBe(last + 80);
  });

  it.each([1, 20, 49, 50, 51, 79])('a byte %i ms after the timer was armed moves the deadline with it', (at) => {
    const start = performance.now();
    const { dog, firedAt } = watch(50);
    vi.advanceTimersByTime(at);
    if (at < 50) dog.touch();
    vi.advanceTimersByTime(1000);
    expect(firedAt()! - start).toBe(at < 50 ? at + 50 : 50);
  });

  it('fires when nothing ever arrives', () => {
    const { firedAt } = watch(50);
    const start = performance.now();
    vi.advanceTimersByTime(49);
    expect(firedAt()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(firedAt()).toBe(start + 50);
  });

  it('does not fire while paused, and counts afresh from a resume', () => {
    const { dog, firedAt } = watch(50);
    dog.pause();
    vi.advanceTimersByTime(10_000);
    expect(firedAt()).toBeUndefined();
    dog.resume();
    const resumed = performance.now();
    vi.advanceTimersByTime(49);
    expect(firedAt()).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(firedAt()).toBe(resumed + 50);
  });

  it.each([1, 37, 50, 51, 99, 125])(
    'a resume %i ms after the paused timer fired counts the idle time from the resume',
    (after) => {
      const { dog, firedAt } = watch(50);
      vi.advanceTimersByTime(10);
      dog.pause();
      vi.advanceTimersByTime(40 + after);
      dog.resume();
      const resumed = performance.now();
      vi.advanceTimersByTime(49);
      expect(firedAt()).toBeUndefined();
      vi.advanceTimersByTime(1);
      expect(firedAt()).toBe(resumed + 50);
    },
  );

  it('holds and resumes touch no timer: one stays armed however often the stream is held', () => {
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
    vi.advanceTimersByTime(20);
    dog.pause();
    vi.advanceTimersByTime(20);
    dog.resume();
    const resumed = performance.now();
    vi.advanceTimersByTime(1000);
    expect(firedAt()).toBe(resumed + 50);
  });

  it('never fires once stopped', () => {
    const { dog, firedAt } = watch(30);
    vi.advanceTimersByTime(29);
    dog.stop();
    vi.advanceTimersByTime(10_000);
    expect(firedAt()).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
