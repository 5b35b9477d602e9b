// The idle watchdog fires only after idleMs without a byte, however the bytes fall relative to its
// timer; a pause (back-pressure we caused) keeps it quiet, a resume counts the idle time afresh.
import { afterEach, describe, expect, it } from 'vitest';
import { IdleWatchdog } from '../../../src/stream/idle-watchdog.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dogs: IdleWatchdog[] = [];
afterEach(() => {
  for (const d of dogs.splice(0)) d.stop();
});
function watch(idleMs: number): { dog: IdleWatchdog; firedAt: () => number | undefined; start: number } {
  let at: number | undefined;
  const start = performance.now();
  const dog = new IdleWatchdog(idleMs, () => {
    at = performance.now();
  });
  dogs.push(dog);
  return { dog, firedAt: () => at, start };
}

describe('IdleWatchdog', () => {
  it('stays quiet while bytes keep coming, and fires idleMs after the last one', async () => {
    const { dog, firedAt } = watch(80);
    for (let i = 0; i < 8; i++) {
      await sleep(30);
      dog.touch();
    }
    const last = performance.now();
    expect(firedAt()).toBeUndefined();
    await sleep(200);
    expect(firedAt()).toBeDefined();
    expect(firedAt()! - last).toBeGreaterThanOrEqual(75);
  });

  it('fires when nothing ever arrives', async () => {
    const { firedAt, start } = watch(50);
    await sleep(150);
    expect(firedAt()! - start).toBeGreaterThanOrEqual(45);
  });

  it('does not fire while paused, and counts afresh from a resume', async () => {
    const { dog, firedAt } = watch(50);
    dog.pause();
    await sleep(150);
    expect(firedAt()).toBeUndefined();
    dog.resume();
    const resumed = performance.now();
    await sleep(150);
    expect(firedAt()! - resumed).toBeGreaterThanOrEqual(45);
  });

  it('never fires once stopped', async () => {
    const { dog, firedAt } = watch(30);
    dog.stop();
    await sleep(100);
    expect(firedAt()).toBeUndefined();
  });
});
