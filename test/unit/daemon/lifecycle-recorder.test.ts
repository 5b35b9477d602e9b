import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LifecycleRecorder } from '../../../src/daemon/lifecycle-recorder.js';

/** A spool whose persist() resolves only when the test says so (a collector outage holds it up). */
function world(opts: { followedAgain?: boolean; failWrite?: boolean } = {}) {
  const persists = new Map<string, () => void>();
  const written: Array<[string, string]> = [];
  let settled = 0;
  const recorder = new LifecycleRecorder({
    spool: { persist: (id) => new Promise<void>((resolve) => persists.set(id, resolve)) },
    store: {
      setLifecycle: async (id, lifecycle) => {
        if (opts.failWrite) throw new Error('disk full');
        written.push([id, lifecycle]);
      },
    },
    log: pino({ level: 'silent' }),
    isFollowed: () => opts.followedAgain === true,
    settled: () => settled++,
  });
  const flush = () => new Promise((r) => setImmediate(r));
  return { recorder, persists, written, settled: () => settled, flush };
}

describe('LifecycleRecorder', () => {
  it('writes nothing until the records are safe, and counts the session as settling meanwhile', async () => {
    const w = world();
    w.recorder.record('a', 'ended');
    w.recorder.record('b', 'removed');
    await w.flush();
    expect(w.written).toEqual([]);
    expect([w.recorder.has('a'), w.recorder.has('b'), w.recorder.size]).toEqual([true, true, 2]);

    w.persists.get('b')!();
    await w.flush();
    expect(w.written).toEqual([['b', 'removed']]);
    expect([w.recorder.has('a'), w.recorder.has('b'), w.settled()]).toEqual([true, false, 1]);

    w.persists.get('a')!();
    await w.recorder.drain();
    await w.flush();
    expect(w.written).toEqual([
      ['b', 'removed'],
      ['a', 'ended'],
    ]);
    expect([w.recorder.size, w.settled()]).toEqual([0, 2]);
  });

  it('leaves the lifecycle of a session followed again meanwhile as the new follow set it', async () => {
    const w = world({ followedAgain: true });
    w.recorder.record('a', 'removed');
    w.persists.get('a')!();
    await w.recorder.drain();
    expect(w.written).toEqual([]);
    expect(w.recorder.has('a')).toBe(false);
  });

  it('a failed write is logged, not thrown, and the session stops settling', async () => {
    const w = world({ failWrite: true });
    w.recorder.record('a', 'ended');
    w.persists.get('a')!();
    await w.recorder.drain();
    await w.flush();
    expect([w.recorder.has('a'), w.settled()]).toEqual([false, 1]);
  });
});
