// `run --until-ended`'s decision with a fake supervisor and a fake discovery loop: without discovery
// it is the supervisor's "all over"; with discovery it waits for a first session, and believes
// "over" only after a pass of the list begun once everything ended found nothing new.
import { describe, expect, it } from 'vitest';
import { AllEnded } from '../../../src/daemon/all-ended.js';
import { untilEnded } from '../../../src/daemon/until-ended.js';

/** A run whose sessions the test moves (`follow`, `endAll`), over the real AllEnded. */
function fakeRun() {
  let followed = 0;
  const run = new AllEnded({ followed: () => followed, settling: () => 0, spoolIdle: () => true });
  return {
    run,
    follow() {
      followed++;
      run.sessionFollowed();
    },
    endAll() {
      followed = 0;
      run.check();
    },
  };
}

/** A list whose passes the test runs one by one; `pass(found)` follows what that pass found. */
function fakeDiscovery(onFound: () => void) {
  let waiters: Array<() => void> = [];
  return {
    settled: () => Promise.resolve(),
    nextPass: () => new Promise<void>((r) => waiters.push(r)),
    /** One pass of the list; `found`: it lists a new session. */
    pass(found: boolean) {
      if (found) onFound();
      const w = waiters;
      waiters = [];
      for (const r of w) r();
    },
    get waiting() {
      return waiters.length;
    },
  };
}

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('run --until-ended', () => {
  it('without discovery: over once every followed session ended (nothing followed: at once)', async () => {
    const s = fakeRun();
    await untilEnded({ run: s.run });
    s.follow();
    let done = false;
    void untilEnded({ run: s.run }).then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    s.endAll();
    await tick();
    expect(done).toBe(true);
  });

  it('with discovery: waits for a first session, and for a pass after the last end that finds none', async () => {
    const s = fakeRun();
    const list = fakeDiscovery(() => s.follow());
    let waitingSaid = 0;
    let done = false;
    void untilEnded({ run: s.run, discovery: list, waiting: () => waitingSaid++ }).then(() => (done = true));
    await tick();
    // The first pass found nothing: said once, and nothing ends a run that has followed nothing.
    expect(waitingSaid).toBe(1);
    expect(list.waiting).toBe(0);
    s.endAll();
    await tick();
    expect(done).toBe(false);

    // A session appears and ends: one more pass is asked before the run is over.
    s.follow();
    s.endAll();
    await tick();
    expect(done).toBe(false);
    expect(list.waiting).toBe(1);
    // That pass finds the next session of the series: not over.
    list.pass(true);
    await tick();
    expect(done).toBe(false);
    s.endAll();
    await tick();
    expect(list.waiting).toBe(1);
    list.pass(false);
    await tick();
    expect(done).toBe(true);
    expect(waitingSaid).toBe(1);
  });
});

describe('AllEnded', () => {
  it('over: nothing followed, nothing settling, the spool idle; a waiter asking for a first session waits for one', async () => {
    const state = { followed: 1, settling: 0, idle: true };
    const a = new AllEnded({
      followed: () => state.followed,
      settling: () => state.settling,
      spoolIdle: () => state.idle,
    });
    const answered: string[] = [];
    void a.wait().then(() => answered.push('plain'));
    void a.wait({ firstSession: true }).then(() => answered.push('first session'));
    a.sessionFollowed();
    state.followed = 0;
    state.settling = 1;
    a.check();
    await tick();
    expect(answered).toEqual([]);
    state.settling = 0;
    state.idle = false;
    a.check();
    await tick();
    expect(answered).toEqual([]);
    state.idle = true;
    a.check();
    await tick();
    expect(answered).toEqual(['plain', 'first session']);

    const fresh = new AllEnded({ followed: () => 0, settling: () => 0, spoolIdle: () => true });
    let first = false;
    void fresh.wait({ firstSession: true }).then(() => (first = true));
    await fresh.wait();
    expect(first).toBe(false);
    expect(fresh.isOver()).toBe(false);
  });

  it('shared store: over only when no session is active anywhere; one active anywhere counts as followed', async () => {
    let anywhere = -1;
    const a = new AllEnded({
      followed: () => 0,
      settling: () => 0,
      spoolIdle: () => true,
      activeAnywhere: () => anywhere,
    });
    let done = false;
    void a.wait({ firstSession: true }).then(() => (done = true));
    const pass = a.nextOwnershipPass();
    anywhere = 2;
    a.ownershipPassed();
    await pass;
    expect(a.followedAny).toBe(true);
    await tick();
    expect(done).toBe(false);
    anywhere = 0;
    a.ownershipPassed();
    await tick();
    expect(done).toBe(true);
  });
});
