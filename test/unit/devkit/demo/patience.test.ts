// The demo waits for its daemon as long as records keep arriving (src/devkit/demo/patience.ts), on
// an injected clock: a slow machine's run is not cut short, a stalled daemon is still stopped.
import { describe, expect, it } from 'vitest';
import { Patience } from '../../../../src/devkit/demo/patience.js';

describe('Patience', () => {
  it('keeps waiting past the minimum while records keep arriving', () => {
    const p = new Patience(0, 60_000, 30_000);
    for (let t = 0; t <= 200_000; t += 500) {
      p.observe(t, t / 10);
      expect(p.over(t)).toBe(false);
    }
  });

  it('stops once nothing new arrived for the stall time after the minimum', () => {
    const p = new Patience(0, 60_000, 30_000);
    p.observe(0, 0);
    p.observe(10_000, 500);
    expect(p.over(39_999)).toBe(false);
    expect(p.over(59_999)).toBe(false); // stalled, but the minimum is not reached
    expect(p.over(60_000)).toBe(true);
    p.observe(70_000, 500); // the same count again is no progress
    expect(p.over(70_000)).toBe(true);
  });

  it('counts a stall from the last progress, not from the start', () => {
    const p = new Patience(0, 60_000, 30_000);
    p.observe(100_000, 7);
    expect(p.over(129_999)).toBe(false);
    expect(p.over(130_000)).toBe(true);
  });
});
