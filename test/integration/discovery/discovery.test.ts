// Discovery against the simulator over real sockets, with the bridge built by the composition
// root: sessions found by a tag selector within two polls and read from their first event, paging
// past 100, 429 with Retry-After, 5xx, a service without the list, sessions deleted while the
// bridge was down, and sessions that leave the list.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../../src/daemon/bridge.js';
import { FAST, harness, sleep, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
const extra: Bridge[] = [];
afterEach(async () => {
  for (const b of extra.splice(0)) await b.shutdown(Date.now());
  await h?.close();
  h = undefined;
});

const DISCOVER = { BRIDGE_DISCOVER: 'true', BRIDGE_DISCOVER_TAGS: 'team=a', BRIDGE_DISCOVER_INTERVAL: '300ms' };

async function polls(b: Bridge, outcome: string): Promise<number> {
  return b.metrics.discoveryPolls.get({ outcome }) ?? 0;
}

async function discoveredTotal(b: Bridge, status: 'active' | 'deleted'): Promise<number> {
  return b.metrics.discoveredSessions.get({ status }) ?? 0;
}

/** A bridge whose log lines are kept (JSON objects), for the messages an operator reads. */
async function bridgeWithLog(
  hh: Harness,
  env: Record<string, string>,
): Promise<{ b: Bridge; lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  const b = await startBridge(hh.config(FAST, env), pino({ level: 'info' }, sink));
  extra.push(b);
  return { b, lines };
}

const followed = (b: Bridge, id: string): boolean => b.supervisor.session(id) !== undefined;

describe('discovery', () => {
  it('follows a matching session within two polls of its appearing, from its first event, to the end of its stream', async () => {
    h = await harness();
    h.sim.createSession('named');
    h.sim.createSession('other-team', { tags: { team: 'b' } });
    const b = await h.startBridge(FAST, { ...DISCOVER, BRIDGE_SESSIONS: 'named' });
    await until(() => b.supervisor.status().length >= 1, 'the configured session');
    await sleep(700);

    const s = h.sim.createSession('new-a', { tags: { team: 'a', env: 'dev' } });
    s.emit(40); // before the bridge can know the session: its start must not be missed
    const okBefore = await polls(b, 'ok');
    await until(() => followed(b, 'new-a'), 'the new session followed', 10_000);
    expect(await polls(b, 'ok')).toBeLessThanOrEqual(okBefore + 2);

    s.emit(25);
    // Leaving the list does not stop it: the stream's end decides.
    s.end();
    await until(() => h!.tally(['new-a'])[0]!.missing === 0, 'every event of the discovered session delivered', 15_000);
    const t = h.tally(['new-a'])[0]!;
    expect(t).toMatchObject({ unique: 65, duplicates: 0, gapRecords: 0 });
    expect(b.supervisor.session('new-a')?.source).toBe('discovery');
    expect(b.supervisor.session('named')?.source).toBe('config');
    expect(followed(b, 'other-team')).toBe(false);
    expect(await discoveredTotal(b, 'active')).toBe(1);
    // The ended session is not followed again although the list may still show it for a moment.
    await sleep(700);
    expect(h.sim.session('new-a')!.ended).toBe(true);
    expect(b.supervisor.followedCount).toBe(1);
  });

  it('pages past 100 matches: all 230 are followed, and X-Next-Offset is taken as the absolute start', async () => {
    h = await harness();
    const ids = Array.from({ length: 230 }, (_, i) => `p${String(i).padStart(3, '0')}`);
    for (const id of ids) h.sim.createSession(id, { tags: { team: 'a' } });
    const b = await h.startBridge(FAST, DISCOVER);
    await until(() => ids.every((id) => followed(b, id)), 'all 230 sessions followed', 20_000);
    expect(b.supervisor.followedCount).toBe(230);
    expect(await discoveredTotal(b, 'active')).toBe(230);
  });

  it('waits as Retry-After says on 429, backs off on 5xx, then discovers', async () => {
    h = await harness();
    h.sim.createSession('late', { tags: { team: 'a' } });
    h.sim.faults.listFailNext = [{ status: 429, retryAfterSeconds: 2 }];
    const started = Date.now();
    const b = await h.startBridge(FAST, DISCOVER);
    await until(() => followed(b, 'late'), 'followed after the rate limit', 10_000);
    // Interval 300 ms, backoff 20 ms: only Retry-After explains the wait.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(await polls(b, 'rate_limited')).toBe(1);

    h.sim.faults.listFailNext = [{ status: 503 }, { status: 500 }, { status: 502 }];
    h.sim.createSession('after-5xx', { tags: { team: 'a' } });
    await until(() => followed(b, 'after-5xx'), 'followed after three server errors', 10_000);
    expect(await polls(b, 'server_error')).toBe(3);
  });

  it('a list call the service never answers (paused): discovery times out, says so and retries; a followed session goes on', async () => {
    const hh = await harness();
    h = hh;
    const f = hh.sim.createSession('f', { tags: { team: 'b' } });
    hh.sim.faults.listHold = true;
    const raw = { ...FAST, upstream: { ...(FAST.upstream as object), connect_timeout: '500ms' } };
    const b = await hh.startBridge(raw, { ...DISCOVER, BRIDGE_SESSIONS: 'f' });
    // Two list calls cut by the timeout and reported: discovery tries again after each.
    await until(() => (b.metrics.discoveryPolls.get({ outcome: 'failed' }) ?? 0) >= 2, 'two timed-out polls', 10_000);
    // Meanwhile (the list still held) the configured session streams and delivers.
    f.emit(40);
    await until(() => hh.received('f') >= 40, "the followed session's 40 events");
    expect(b.supervisor.status().find((s) => s.id === 'f')).toMatchObject({ state: 'streaming' });
    expect(hh.sim.faults.listHold).toBe(true);
    hh.sim.createSession('late', { tags: { team: 'a' } });
    hh.sim.faults.listHold = false;
    await until(() => followed(b, 'late'), 'followed once the list answers again', 10_000);
    f.emit(10);
    await until(() => hh.received('f') >= 50, "the followed session's next 10 events");
  });

  it('a service without the list: a clear message at start, and the configured sessions are served as before', async () => {
    h = await harness({ listRoute: false });
    const s = h.sim.createSession('cfg-1', { tags: { team: 'a' } });
    s.emit(20);
    const { b, lines } = await bridgeWithLog(h, { ...DISCOVER, BRIDGE_SESSIONS: 'cfg-1' });
    await until(() => lines.some((l) => /no session list/.test(String(l.msg))), 'the no-route message');
    const line = lines.find((l) => /no session list/.test(String(l.msg)))!;
    expect(line).toMatchObject({ level: 50, status: 404 });
    expect(String(line.msg)).toMatch(/configured and PUT sessions are followed as before/);
    await until(() => h!.tally(['cfg-1'])[0]!.unique === 20, 'the configured session delivered');
    expect(await polls(b, 'no_route')).toBe(1);
    // Said once, not every interval.
    await sleep(700);
    expect(lines.filter((l) => /no session list/.test(String(l.msg)))).toHaveLength(1);
  });

  it('a service that refuses status=all: said once, and a session that lived and ended between two polls is still followed', async () => {
    h = await harness();
    h.sim.faults.listRefusedStatuses = ['all'];
    const { b, lines } = await bridgeWithLog(h, DISCOVER);
    const ok = (): number => b.metrics.discoveryPolls.get({ outcome: 'ok' }) ?? 0;
    await until(() => ok() >= 2, 'two polls');
    const short = h.sim.createSession('short-lived', { tags: { team: 'a' } });
    short.emit(15);
    short.end();
    await until(() => h!.tally(['short-lived'])[0]!.unique === 15, 'the short session read whole', 15_000);
    await until(() => ok() >= 5, 'three more polls');
    const said = lines.filter((l) => l.shape === 'status_refused');
    expect(said).toHaveLength(1);
    expect(String(said[0]!.msg)).toContain('status=active and status=deleted');
    expect(await polls(b, 'failed')).toBe(0);
  });

  it('nothing missed while the bridge was down: sessions deleted since the last successful poll are read from the archive', async () => {
    h = await harness();
    const first = h.sim.createSession('before', { tags: { team: 'a' } });
    first.emit(10);
    const b1 = await h.startBridge(FAST, DISCOVER);
    await until(() => h!.tally(['before'])[0]!.unique === 10, 'the first session delivered');
    await b1.shutdown(Date.now() + 5000);

    // While no bridge runs: a matching session lives and ends, and so does one of another team.
    const gone = h.sim.createSession('while-down', { tags: { team: 'a' } });
    gone.emit(120);
    gone.end();
    const notOurs = h.sim.createSession('while-down-b', { tags: { team: 'b' } });
    notOurs.emit(5);
    notOurs.end();
    const alive = h.sim.createSession('while-down-live', { tags: { team: 'a' } });
    alive.emit(7);

    const b2 = await h.startBridge(FAST, DISCOVER);
    await until(() => h!.tally(['while-down'])[0]!.missing === 0, 'the deleted session read from the archive', 15_000);
    expect(h.tally(['while-down'])[0]).toMatchObject({ unique: 120, duplicates: 0, gapRecords: 0 });
    await until(() => h!.tally(['while-down-live'])[0]!.unique === 7, 'the live one too');
    expect(h.tally(['while-down-b'])[0]!.unique).toBe(0);
    expect(b2.supervisor.session('while-down')?.source).toBe('discovery');
    expect(await discoveredTotal(b2, 'deleted')).toBe(1);
    // The first session was followed before: it is not read again.
    expect(h.tally(['before'])[0]).toMatchObject({ unique: 10, duplicates: 0 });
  });

  it('a session deleted while down, on a service without an archive: a record says its events are unknown', async () => {
    h = await harness({ archiveSize: 0 });
    const b1 = await h.startBridge(FAST, DISCOVER);
    await sleep(400); // a successful poll or two: the last success is recorded
    await b1.shutdown(Date.now() + 5000);
    const gone = h.sim.createSession('no-archive', { tags: { team: 'a' } });
    gone.emit(15);
    gone.end();
    await h.startBridge(FAST, DISCOVER);
    await until(() => h!.tally(['no-archive'])[0]!.tailsUnknown >= 1, 'a gap record admitting an unknown tail', 15_000);
  });
});
