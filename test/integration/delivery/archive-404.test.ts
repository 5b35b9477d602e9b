// One session the archive does not know (a deleted browser, a mistyped id) must not switch gap
// repair off for every other session: a 404 is told apart (GET /browsers/{id}?include_deleted=true)
// as "no such session" (that session only) or "no such route" (an older service: everyone, asked
// again later). Real simulator, real sockets, the daemon's own client.
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveReader } from '../../../src/upstream/archive.js';
import { UpstreamClient } from '../../../src/upstream/client.js';
import { createApiKeyProvider } from '../../../src/upstream/api-key.js';
import { startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { silentLogger } from '../../../src/util/logger.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let sim: Simulator | undefined;
let client: UpstreamClient | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.close();
  await h?.close();
  sim = undefined;
  client = undefined;
  h = undefined;
});

async function reader(simOpts: Parameters<typeof startSimulator>[0], reprobeMs = 60_000) {
  sim = await startSimulator({ keepaliveMs: 500, seed: 7, ...simOpts });
  client = new UpstreamClient({
    baseUrl: sim.url,
    apiKey: createApiKeyProvider({ apiKey: 'sim-key' }),
    connectTimeoutMs: 2000,
  });
  const facts: Fact[] = [];
  const r = new ArchiveReader(client, silentLogger(), {
    mode: 'auto',
    retryDelayMs: 1,
    reprobeMs,
    emit: (f) => facts.push(f),
  });
  return { r, facts };
}

const readAll = async (r: ArchiveReader, id: string) => {
  const seqs: number[] = [];
  const res = await r.scan(id, { sinceMicros: 0, onPage: (p) => (seqs.push(...p.map((e) => e.seq)), true) });
  return { kind: res.kind, seqs };
};

describe('archive 404s', () => {
  it('a session the service does not know leaves the archive on for the others', async () => {
    const { r, facts } = await reader({});
    sim!.createSession('good').emit(5);
    expect((await readAll(r, 'typo')).kind).toBe('absent');
    expect(facts).toContainEqual(
      expect.objectContaining({ f: 'archive_probed', session: 'typo', verdict: 'no_session' }),
    );
    expect(r.usable).toBe(true);
    expect(await readAll(r, 'good')).toEqual({ kind: 'ok', seqs: [1, 2, 3, 4, 5] });
  });

  it('a deleted (ended) session keeps its archive', async () => {
    const { r } = await reader({});
    const s = sim!.createSession('gone');
    s.emit(3);
    s.end();
    expect(await readAll(r, 'gone')).toEqual({ kind: 'ok', seqs: [1, 2, 3] });
  });

  it('a service without the route is absent for everyone, and asked again later', async () => {
    const { r, facts } = await reader({ archiveSize: 0 }, 300);
    sim!.createSession('a').emit(2);
    expect((await readAll(r, 'a')).kind).toBe('absent');
    expect(facts).toContainEqual(expect.objectContaining({ f: 'archive_probed', verdict: 'no_route' }));
    expect(r.usable).toBe(false);
    await new Promise((res) => setTimeout(res, 350));
    expect(r.usable).toBe(true);
  });

  it("end to end: a mistyped session next to a real one; the real one's lost frames are still repaired", async () => {
    h = await harness();
    const s = h.sim.createSession('real');
    s.emit(10);
    const bad = s.injectMalformed('json');
    s.emit(10);
    // start: latest asks the archive for the typo's newest event first: the archive answers 404.
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'typo-x1', BRIDGE_START: 'latest' });
    await until(() => bridge.supervisor.status().every((x) => x.state === 'unknown'), 'the typo to be found unknown');
    await bridge.supervisor.add({ id: 'real', start: 'oldest', attributes: {} } as never, 'api');
    await until(
      () => h!.receiver.records.filter((x) => x.attributes['browser.session.id'] === 'real').length >= 21,
      'the real session with its repaired frame',
    );
    const real = h.receiver.records.filter((x) => x.attributes['browser.session.id'] === 'real');
    expect(real.some((x) => Number(x.attributes['browser.telemetry.seq']) === bad)).toBe(true);
    expect(real.filter((x) => x.eventName === 'browser.telemetry_gap')).toEqual([]);
  });
});
