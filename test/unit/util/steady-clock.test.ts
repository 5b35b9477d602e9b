// steadyNow follows Date.now() forward and never goes back: a wall clock stepped back leaves the
// durations measured with it (the spool's) growing from where they were, not negative.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { steadyNow } from '../../../src/util/steady-clock.js';

describe('steadyNow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('follows the wall clock forward, holds its ground when it steps back, and goes on at its pace', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(10_000_000);
    const start = steadyNow();
    expect(start).toBeGreaterThanOrEqual(10_000_000);
    vi.setSystemTime(10_001_000);
    expect(steadyNow() - start).toBe(1000);
    // NTP steps the clock back an hour.
    vi.setSystemTime(10_001_000 - 3_600_000);
    expect(steadyNow() - start).toBe(1000);
    vi.setSystemTime(10_001_000 - 3_600_000 + 500);
    expect(steadyNow() - start).toBe(1500);
    // A step forward passes through.
    vi.setSystemTime(10_001_000 + 60_000);
    expect(steadyNow() - start).toBe(1500 + 3_600_000 - 500 + 60_000);
  });
});
