// Reload in a real daemon process (`run` as a child): SIGHUP and a saved file change the followed
// sessions; an invalid file is logged with its key and ignored; SIGTERM still exits 0 afterwards.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { FAST, eventually, followedIds, startWorld, worldEnv, type World } from '../server/bridge-harness.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../../..');
let world: World;
let daemon: ChildProcessWithoutNullStreams | undefined;

beforeEach(async () => {
  world = await startWorld();
});

afterEach(async () => {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
  await world.close();
});

interface LogLine {
  msg: string;
  [k: string]: unknown;
}

it('SIGHUP and a saved file reload the session list of a running daemon', async () => {
  for (const id of ['a', 'b', 'c']) world.sim.createSession(id);
  const file = join(world.stateDir, 'bridge.yaml');
  const save = (doc: Record<string, unknown>): void => {
    writeFileSync(`${file}.tmp`, stringify({ ...FAST, ...doc }));
    renameSync(`${file}.tmp`, file);
  };
  save({ sessions: ['a', 'b'] });

  daemon = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'run', '--config', file], {
    cwd: repoRoot,
    env: { ...process.env, ...worldEnv(world), LOG_LEVEL: 'info' },
  });
  const logs: LogLine[] = [];
  let partial = '';
  daemon.stderr.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (l.startsWith('{')) logs.push(JSON.parse(l) as LogLine);
  });
  const exited = new Promise<number | null>((r) => daemon!.once('exit', (code) => r(code)));
  const logged = (msg: string, exact = false): Promise<LogLine> =>
    eventually(() => logs.find((l) => (exact ? l.msg === msg : l.msg.startsWith(msg))), `log "${msg}"`, 30_000);

  const url = (await logged('HTTP surface listening')).url as string;
  await eventually(async () => ((await followedIds(url)).join() === 'a,b' ? true : undefined), 'a and b followed');
  world.sim.session('a')!.emit(10);
  await world.receiver.waitFor((rs) => rs.length === 10);

  // 1. SIGHUP: a is dropped from the list, c added.
  save({ sessions: ['b', 'c'] });
  daemon.kill('SIGHUP');
  await eventually(async () => ((await followedIds(url)).join() === 'b,c' ? true : undefined), 'b and c followed');
  // Logs are written asynchronously: the API can show the change before the line arrives.
  expect(await logged('configuration reloaded', true)).toMatchObject({
    reason: 'SIGHUP',
    added: ['c'],
    removed: ['a'],
  });

  // 2. An invalid file: logged with the key, ignored, the daemon runs on.
  save({ sessions: ['c'], exporter: { protocol: 'thrift' } });
  daemon.kill('SIGHUP');
  const rejected = await logged('new configuration is invalid');
  expect(rejected).toMatchObject({ level: 50, key: 'exporter.protocol' });
  expect(await followedIds(url)).toEqual(['b', 'c']);

  // 3. No signal: saving the file is enough (the watch sees the rename-on-save).
  save({ sessions: ['c'] });
  await eventually(async () => ((await followedIds(url)).join() === 'c' ? true : undefined), 'only c followed');

  world.sim.session('c')!.emit(5);
  await world.receiver.waitFor((rs) => rs.length === 15);
  daemon.kill('SIGTERM');
  expect(await exited).toBe(0);
});
