// `run --until-ended`'s decision with a fake supervisor and a fake discovery loop: without discovery
// it is the supervisor's "all over"; with discovery it waits for a first session, and believes
// "over" only after a pass of the list begun once everything ended found nothing new.
import { describe, expect, it } from 'vitest';
import { AllEnded } from '../../../src/daemon/all-ended.js';
import { untilEnded, type UntilEndedDeps } from '../../../src/daemon/until-ended.js';

/** A supervisor whose sessions the test moves: `follow`, `endAll`. */
function fakeSupervisor() {
  let followed = 0;
  let saw = false;
  const allEnded = new AllEnded(() => followed === 0);
  const s: UntilEndedDeps['supervisor'] & { follow(): void; endAll(): void } = {
    untilAllEnded: (o = {}) => allEnded.wait(o.firstSession === true ? () => saw : undefined),
    isAllOver: () => saw && followed === 0,
    get followedAny() {
      return saw;
    },
    nextOwnershipPass: () => Promise.resolve(),
    follow() {
      followed++;
      saw = true;
    },
    endAll() {
      followed = 0;
      allEnded.check();
    },
  };
  return s;
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
    const s = fakeSupervisor();
    await untilEnded({ supervisor: s });
    s.follow();
    let done = false;
    void untilEnded({ supervisor: s }).then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    s.endAll();
    await tick();
    expect(done).toBe(true);
  });

  it('with discovery: waits for a first session, and for a pass after the last end that finds none', async () => {
    const s = fakeSupervisor();
    const list = fakeDiscovery(() => s.follow());
    let waitingSaid = 0;
    let done = false;
    void untilEnded({ supervisor: s, discovery: list, waiting: () => waitingSaid++ }).then(() => (done = true));
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
  it("a waiter's own condition holds it after the common one holds; others are answered", async () => {
    let over = false;
    let ready = false;
    const a = new AllEnded(() => over);
    const answered: string[] = [];
    void a.wait().then(() => answered.push('plain'));
    void a.wait(() => ready).then(() => answered.push('conditional'));
    a.check();
    await tick();
    expect(answered).toEqual([]);
    over = true;
    a.check();
    await tick();
    expect(answered).toEqual(['plain']);
    ready = true;
    a.check();
    await tick();
    expect(answered).toEqual(['plain', 'conditional']);
  });
});
