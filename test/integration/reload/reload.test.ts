// Configuration reload in process, on real sockets: the session list, the filters, invalid files and
// settings that need a restart — and that nothing read before the reload is dropped.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig, type Env } from '../../../src/config/load-config.js';
import { createReloader, type Reloader } from '../../../src/daemon/reload.js';
import {
  FAST,
  eventually,
  followedIds,
  startInProcess,
  startWorld,
  worldEnv,
  type RunningBridge,
  type World,
} from '../server/bridge-harness.js';
import { parsePrometheusText, value } from '../server/prom-text.js';

let world: World;
let running: RunningBridge;
let file: string;
let env: Env;
let reloader: Reloader;

/** Saves the configuration the way editors do: a temporary file renamed over the old one. */
function writeConfig(doc: Record<string, unknown>): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, stringify({ ...FAST, ...doc }));
  renameSync(tmp, file);
}

async function start(doc: Record<string, unknown>): Promise<void> {
  file = join(world.stateDir, 'bridge.yaml');
  // As startInProcess builds the running configuration: sessions on this thread.
  env = { BRIDGE_WORKERS: '0', ...worldEnv(world) };
  writeConfig(doc);
  running = await startInProcess(world, {}, { ...env, BRIDGE_CONFIG: file });
  // The reloader reads the same file with the test's environment instead of process.env.
  reloader = createReloader(running.bridge, () => loadConfig(file, env));
}

const streaming = (id: string) => async (): Promise<true | undefined> => {
  const res = await fetch(`${running.url}/v1/sessions/${id}`);
  return res.ok && ((await res.json()) as { state: string }).state === 'streaming' ? true : undefined;
};

beforeEach(async () => {
  world = await startWorld();
});

afterEach(async () => {
  await running?.stop(Date.now());
  await world.close();
});

describe('configuration reload', () => {
  it('follows new sessions, stops config sessions no longer listed, updates changed ones, leaves API sessions alone', async () => {
    for (const id of ['a', 'b', 'c', 'api-1']) world.sim.createSession(id);
    await start({ sessions: ['a', { id: 'b', attributes: { team: 'one' } }] });
    expect(running.config.configPath).toBe(file);
    expect((await fetch(`${running.url}/v1/sessions/api-1`, { method: 'PUT' })).status).toBe(201);
    await eventually(streaming('a'), 'a streaming');

    writeConfig({ sessions: [{ id: 'b', attributes: { team: 'two' } }, 'c'] });
    const outcome = await reloader.reload('test');
    expect(outcome).toMatchObject({
      status: 'applied',
      added: ['c'],
      removed: ['a'],
      updated: ['b'],
      mappingChanged: false,
      restartRequired: [],
    });
    expect(await followedIds(running.url)).toEqual(['api-1', 'b', 'c']);
    expect(running.bridge.config.sessions.map((s) => s.id)).toEqual(['b', 'c']);

    world.sim.session('b')!.emit(2);
    await world.receiver.waitFor((rs) => rs.filter((r) => r.attributes['team'] === 'two').length === 2);

    // The same file again changes nothing.
    expect(await reloader.reload('again')).toMatchObject({ status: 'unchanged', added: [], removed: [], updated: [] });

    // A removed config session stays removed across a restart, like one deleted through the API.
    await running.stop();
    running = await startInProcess(world, {}, { ...env, BRIDGE_CONFIG: file });
    await eventually(streaming('c'), 'c streaming after restart');
    expect(await followedIds(running.url)).toEqual(['api-1', 'b', 'c']);
  });

  it('applies new filters from the next event on, and drops nothing that was read before the reload', async () => {
    // Console and page are opt-in, as on the real service.
    const a = world.sim.createSession('a', { categories: ['console', 'page'] });
    const b = world.sim.createSession('b', { categories: ['console', 'page'] });
    await start({ sessions: ['a', 'b'] });
    await eventually(streaming('a'), 'a streaming');
    await eventually(streaming('b'), 'b streaming');

    // Collector down: everything read sits in the spool (or the writer's queue) during the reload.
    await world.receiver.stop();
    a.emit(30, { types: ['console_log'] });
    b.emit(30, { types: ['console_log'] });
    await eventually(
      () => (running.bridge.supervisor.status().every((s) => s.lastReceivedSeq === 30) ? true : undefined),
      'all read',
    );

    writeConfig({ sessions: ['b'], mapping: { filters: { exclude_categories: ['console'] } } });
    const outcome = await reloader.reload('test');
    expect(outcome).toMatchObject({ status: 'applied', removed: ['a'], mappingChanged: true });
    b.emit(5, { types: ['console_log'] });
    b.emit(5, { types: ['page_navigation'] });

    await world.receiver.start();
    // 60 read before the reload (old mapping, none filtered) + the 5 navigations; the 5 console
    // events after it are filtered (counted, checkpointed, not exported).
    await world.receiver.waitFor((rs) => rs.length === 65);
    const bySession = (id: string): number =>
      world.receiver.records.filter((r) => r.attributes['browser.session.id'] === id).length;
    expect(bySession('a')).toBe(30);
    expect(bySession('b')).toBe(35);
    await eventually(
      () => (running.bridge.supervisor.session('b')?.filtered === 5 ? true : undefined),
      'filtered counted',
    );
    const m = parsePrometheusText(await (await fetch(`${running.url}/metrics`)).text());
    expect(value(m, 'bridge_events_filtered_total', { category: 'console' })).toBe(5);
    expect(value(m, 'bridge_config_reloads_total', { outcome: 'applied' })).toBe(1);
  });

  it('ignores an invalid configuration, naming the key, and keeps running on the previous one', async () => {
    world.sim.createSession('a');
    await start({ sessions: ['a'], mapping: { filters: { exclude_types: ['console_log'] } } });
    const mapperBefore = running.bridge.mapper.options;

    for (const [doc, key] of [
      [{ sessions: ['b'], spool: { max_bites: 1 } }, 'spool.max_bites'],
      [{ sessions: [{ id: 'not valid!' }] }, 'sessions[0].id'],
      [{ sessions: ['b'], mapping: { screenshots: { policy: 'directory' } } }, 'mapping.screenshots.directory'],
    ] as const) {
      writeConfig(doc);
      const outcome = await reloader.reload('test');
      expect(outcome.status).toBe('rejected');
      expect(outcome.error?.key).toBe(key);
      expect(outcome.added).toEqual([]);
    }
    writeFileSync(file, 'sessions: [unclosed');
    expect((await reloader.reload('test')).error?.key).toBe('config');

    expect(await followedIds(running.url)).toEqual(['a']);
    expect(running.bridge.mapper.options).toBe(mapperBefore);
    expect(running.bridge.config.sessions.map((s) => s.id)).toEqual(['a']);
    const m = parsePrometheusText(await (await fetch(`${running.url}/metrics`)).text());
    expect(value(m, 'bridge_config_reloads_total', { outcome: 'rejected' })).toBe(4);
  });

  it('reports a change to traces, workers and memory_limit as needing a restart (a reload ignored them without a word)', async () => {
    await start({ sessions: [] });
    writeConfig({ traces: { enabled: true }, memory_limit: '1GiB' });
    env.BRIDGE_WORKERS = '2';
    const outcome = await reloader.reload('test');
    expect(outcome.status).toBe('unchanged');
    expect(outcome.restartRequired.sort()).toEqual(['memory_limit', 'traces.enabled', 'workers']);
  });

  it('reports settings that only a restart applies, without their values, and applies the rest', async () => {
    world.sim.createSession('a');
    await start({ sessions: [] });
    const before = running.bridge.config.exporter.url;
    writeConfig({
      sessions: ['a'],
      start: 'latest',
      spool: { ...(FAST.spool as object), max_bytes: '64MiB' },
      exporter: { ...(FAST.exporter as object), headers: { authorization: 'Bearer new-secret' } },
      upstream: { ...(FAST.upstream as object), api_key: 'another-key' },
    });
    const outcome = await reloader.reload('test');
    expect(outcome).toMatchObject({ status: 'applied', added: ['a'], startChanged: true });
    expect(outcome.restartRequired.sort()).toEqual(['exporter.headers', 'spool.max_bytes']);
    expect(JSON.stringify(outcome)).not.toContain('new-secret');
    // BROWSER_API_KEY in the environment wins over upstream.apiKey, so the upstream did not change.
    expect(running.bridge.config.exporter.url).toBe(before);
    expect(running.bridge.config.start).toBe('latest');
  });

  it('coalesces triggers that arrive while a reload runs, and ignores them after close()', async () => {
    world.sim.createSession('a');
    await start({ sessions: [] });
    writeConfig({ sessions: ['a'] });
    // A burst (SIGHUP and the file watch together) is one reload: each would read the same file.
    const first = reloader.reload('one');
    expect(reloader.reload('two')).toBe(first);
    expect(reloader.reload('three')).toBe(first);
    expect((await first).added).toEqual(['a']);
    expect((await reloader.reload('later')).status).toBe('unchanged');
    reloader.close();
    writeConfig({ sessions: [] });
    expect((await reloader.reload('late')).removed).toEqual([]);
    expect(await followedIds(running.url)).toEqual(['a']);
  });
});
