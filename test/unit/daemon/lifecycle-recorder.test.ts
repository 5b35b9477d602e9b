import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LifecycleRecorder } from '../../../src/daemon/lifecycle-recorder.js';

/** A spool whose persist() resolves only when the test says so (a collector outage holds it up). */
function world(opts: { followedAgain?: boolean; failWrite?: boolean; failDrop?: boolean } = {}) {
  const persists = new Map<string, () => void>();
  const written: Array<[string, string]> = [];
  const dropped: string[] = [];
  const ended: string[] = [];
  let settled = 0;
  const recorder = new LifecycleRecorder({
    spool: {
      persist: (id) => new Promise<void>((resolve) => persists.set(id, resolve)),
      ended: (id) => ended.push(id),
    },
    store: {
      setLifecycle: async (id, lifecycle, sending) => {
        if (opts.failWrite) throw new Error('disk full');
        written.push([id, sending ? `${lifecycle}, sending` : lifecycle]);
      },
      dropSpanState: async (id) => {
        if (opts.failDrop) throw new Error('connection lost');
        dropped.push(id);
      },
    },
    log: pino({ level: 'silent' }),
    isFollowed: () => opts.followedAgain === true,
    settled: () => settled++,
  });
  const flush = () => new Promise((r) => setImmediate(r));
  return { recorder, persists, written, dropped, ended, settled: () => settled, flush };
}

/** A session's spans in flight: settled() resolves when the test lets them settle. */
function spansOut() {
  let settle!: () => void;
  const out = new Promise<void>((resolve) => (settle = resolve));
  return { spansSettled: out, settle };
}

describe('LifecycleRecorder', () => {
  it('writes nothing until the records are safe, and counts the session as settling meanwhile', async () => {
    const w = world();
    w.recorder.record('a', 'ended');
    w.recorder.record('b', 'removed');
    await w.flush();
    expect(w.written).toEqual([]);
    expect(w.ended).toEqual([]);
    expect([w.recorder.has('a'), w.recorder.has('b'), w.recorder.size]).toEqual([true, true, 2]);

    w.persists.get('b')!();
    await w.flush();
    expect(w.written).toEqual([['b', 'removed']]);
    // The spool forgets the session once its records are safe (its position goes with it).
    expect(w.ended).toEqual(['b']);
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
    // Followed again: the spool keeps what it knows of the session for the new follow.
    expect(w.ended).toEqual([]);
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

  it('drops the stored span state once the lifecycle is written and the spans it offered settled, holding it meanwhile', async () => {
    const w = world();
    const a = spansOut();
    w.recorder.record('a', 'ended', a.spansSettled);
    w.recorder.record('b', 'removed');
    w.persists.get('a')!();
    w.persists.get('b')!();
    await w.flush();
    // The recorder's own work is done (run --until-ended does not wait for spans); the state is held.
    expect(w.written).toEqual([
      ['a', 'ended, sending'],
      ['b', 'removed'],
    ]);
    expect([w.recorder.size, w.dropped, [...w.recorder.holdingSpans]]).toEqual([0, [], ['a']]);
    a.settle();
    await w.flush();
    expect([w.dropped, [...w.recorder.holdingSpans]]).toEqual([['a'], []]);
  });

  it('spans already settled: the state is dropped right after the lifecycle is written', async () => {
    const w = world();
    w.recorder.record('a', 'ended', Promise.resolve());
    w.persists.get('a')!();
    await w.flush();
    await w.flush();
    expect([w.written, w.dropped]).toEqual([[['a', 'ended, sending']], ['a']]);
  });

  it('a stop while the spans are out leaves the state stored (the next start sends them), and a drop that fails is logged', async () => {
    const w = world();
    const a = spansOut();
    w.recorder.record('a', 'removed', a.spansSettled);
    w.persists.get('a')!();
    await w.flush();
    await w.recorder.drain();
    a.settle();
    await w.flush();
    expect([w.dropped, [...w.recorder.holdingSpans]]).toEqual([[], []]);

    const f = world({ failDrop: true });
    f.recorder.record('b', 'ended', Promise.resolve());
    f.persists.get('b')!();
    await f.flush();
    await f.flush();
    expect([f.dropped, [...f.recorder.holdingSpans]]).toEqual([[], []]);
  });

  it('no drop for a session followed again, nor after a lifecycle that could not be written', async () => {
    const again = world({ followedAgain: true });
    again.recorder.record('a', 'ended', Promise.resolve());
    again.persists.get('a')!();
    await again.recorder.drain();
    const failed = world({ failWrite: true });
    failed.recorder.record('a', 'ended', Promise.resolve());
    failed.persists.get('a')!();
    await failed.flush();
    await failed.flush();
    expect([again.dropped, failed.dropped]).toEqual([[], []]);
  });
});
