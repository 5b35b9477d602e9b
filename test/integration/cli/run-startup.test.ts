// `run` start-up as a child process: the HTTP port is bound before any session is followed, a
// start-up failure is one line and exit 1, the first log lines say what the daemon is and where it
// talks, and a signal during start-up is a clean shutdown.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, REPO, sleep, type Harness } from '../../helpers/harness.js';
import { runCli, startCli } from './cli-process.js';
import { NOTHING_TO_FOLLOW } from '../../../src/daemon/supervisor.js';

let h: Harness;
let blocker: Server | undefined;

beforeEach(async () => {
  h = await harness();
  h.sim.createSession('s1').produce(50);
});

afterEach(async () => {
  blocker?.close();
  blocker = undefined;
  await h.close();
});

function occupyPort(): Promise<number> {
  blocker = createServer();
  return new Promise((resolve) =>
    blocker!.listen(0, '127.0.0.1', () => resolve((blocker!.address() as { port: number }).port)),
  );
}

describe('run start-up', () => {
  it('a port in use: one line, exit 1, and no stream was ever opened', async () => {
    const port = await occupyPort();
    const res = await runCli(
      ['run'],
      h.env({ BRIDGE_SESSIONS: 's1', BRIDGE_LISTEN: `127.0.0.1:${port}`, LOG_LEVEL: 'info' }),
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `error: cannot listen on 127.0.0.1:${port} (BRIDGE_LISTEN): the address is already in use (another bridge or program has this port)\n`,
    );
    expect(h.sim.stats.connections).toBe(0);
    expect(h.sim.stats.requests).toBe(0);
  });

  it('a shared store that is down: one line naming BRIDGE_STORE_URL (password masked), exit 1', async () => {
    const port = await occupyPort();
    blocker!.close();
    const res = await runCli(
      ['run'],
      h.env({ BRIDGE_SESSIONS: 's1', BRIDGE_STORE_URL: `postgres://bridge:secret@127.0.0.1:${port}/bridge` }),
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      new RegExp(
        `^error: cannot open the shared store postgres://bridge:REDACTED@127\\.0\\.0\\.1:${port}/bridge \\(BRIDGE_STORE_URL or store\\.url\\): connect ECONNREFUSED 127\\.0\\.0\\.1:${port}; `,
      ),
    );
    expect(res.stderr).not.toContain('secret');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a state directory that is a file: one line naming it, exit 1', async () => {
    const file = join(h.stateDir, 'not-a-dir');
    writeFileSync(file, 'x');
    const res = await runCli(['run'], h.env({ BRIDGE_SESSIONS: 's1', BRIDGE_STATE_DIR: file }));
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(`error: the state directory ${file} is a file, not a directory\n`);
    expect(h.sim.stats.requests).toBe(0);
  });

  it('a state directory that cannot exist (a part of its path is a file): one line, exit 1, no stack', async () => {
    const file = join(h.stateDir, 'a-file');
    writeFileSync(file, 'x');
    const res = await runCli(['run'], h.env({ BRIDGE_SESSIONS: 's1', BRIDGE_STATE_DIR: join(file, 'state') }));
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `error: the state directory ${join(file, 'state')} cannot exist: a part of its path is a file, not a directory\n`,
    );
    expect(h.sim.stats.requests).toBe(0);
  });

  it('logs version, service, collector and protocol, state and store, and what the HTTP surface exposes', async () => {
    const p = startCli(
      ['run'],
      h.env({
        BRIDGE_SESSIONS: 's1',
        BRIDGE_LISTEN: '0.0.0.0:0',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      }),
    );
    await p.waitFor(/control API/);
    const lines = p
      .stderr()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const start = lines.find((l) => typeof l.version === 'string');
    expect(start).toMatchObject({
      service: h.sim.url,
      collector: `${h.receiver.url}/v1/logs`,
      protocol: 'http/json',
      stateDir: h.stateDir,
      store: 'sqlite',
    });
    const surface = lines.find((l) => String(l.msg).includes('control API'));
    expect(surface?.msg).toMatch(
      /^HTTP surface listening on http:\/\/0\.0\.0\.0:\d+: \/healthz \/readyz \/metrics open; control API \(\/v1\/sessions\) disabled/,
    );
    p.child.kill('SIGTERM');
    expect((await p.done).code).toBe(0);
  });

  it('nothing configured and discovery off: says what would give it sessions; with a session it does not', async () => {
    const p = startCli(['run'], h.env({ LOG_LEVEL: 'info' }));
    await p.waitFor(/nothing to follow yet/);
    const line = p
      .stderr()
      .split('\n')
      .find((l) => l.includes('nothing to follow yet'));
    expect(JSON.parse(line!)).toMatchObject({ level: 30, msg: NOTHING_TO_FOLLOW });
    p.child.kill('SIGTERM');
    expect((await p.done).code).toBe(0);

    const q = startCli(['run'], h.env({ BRIDGE_SESSIONS: 's1', LOG_LEVEL: 'info' }));
    await q.waitFor(/following sessions/);
    q.child.kill('SIGTERM');
    const res = await q.done;
    expect(res.code).toBe(0);
    expect(res.stderr).not.toContain('nothing to follow');
  });

  it('nothing to follow and no HTTP surface: runs until a signal (it exited 0 at once, without a word)', async () => {
    const p = startCli(['run'], h.env({ BRIDGE_LISTEN: 'off', LOG_LEVEL: 'info' }));
    await p.waitFor(/HTTP surface off/);
    await sleep(1500);
    expect(p.child.exitCode).toBeNull();
    p.child.kill('SIGTERM');
    expect((await p.done).code).toBe(0);
  });

  it('a signal with the collector down says how long delivery is tried and that a second signal exits at once; the second one does', async () => {
    const p = startCli(
      ['run'],
      h.env({ BRIDGE_SESSIONS: 's1', LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' }),
    );
    await p.waitFor(/export failed/);
    p.child.kill('SIGINT');
    await p.waitFor(/shutting down/);
    const line = p
      .stderr()
      .split('\n')
      .find((l) => l.includes('shutting down'));
    expect(JSON.parse(line!)).toMatchObject({
      msg: 'shutting down: stop reading, deliver the spool for up to 10 s (a second Ctrl-C or SIGTERM exits at once; what is not delivered stays spooled)',
    });
    p.child.kill('SIGINT');
    const res = await p.done;
    expect(res.code).toBe(130);
    expect(res.stderr).toContain('second signal: exiting without waiting for delivery');
  });

  // Under a limit too small for max_sessions streams every socket, export and spool file failed with
  // EMFILE at once and nothing said why; the start now says so. prlimit (util-linux) sets the limit.
  it.skipIf(spawnSync('prlimit', ['--version']).status !== 0)(
    'an open-file limit below what max_sessions needs is a warning at start naming both',
    async () => {
      const child = spawn(
        'prlimit',
        ['--nofile=256:256', process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'run'],
        { cwd: REPO, env: { PATH: process.env.PATH ?? '', ...h.env({ BRIDGE_SESSIONS: 's1', LOG_LEVEL: 'warn' }) } },
      );
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      try {
        const t0 = Date.now();
        while (!err.includes('open-file limit') && Date.now() - t0 < 20_000) await sleep(50);
        expect(err).toContain('the open-file limit is 256, below the 1064 that max_sessions 1000 may need');
      } finally {
        child.kill('SIGKILL');
      }
    },
    30_000,
  );

  it('a SIGTERM that arrives during start-up is a clean shutdown, not a kill', async () => {
    const p = startCli(['run'], h.env({ BRIDGE_SESSIONS: 's1', LOG_LEVEL: 'info' }));
    // The first line is logged before the store opens and the sessions start.
    await p.waitFor(/"version"/);
    p.child.kill('SIGTERM');
    const res = await p.done;
    expect(res.code).toBe(0);
  });

  it('a state directory every user may read: a warning at start naming its mode; a private one: none', async () => {
    chmodSync(h.stateDir, 0o755);
    const p = startCli(['run'], h.env({ BRIDGE_SESSIONS: 's1', LOG_LEVEL: 'info' }));
    await p.waitFor(/open to every user/);
    const warn = p
      .stderr()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => String(l.msg).includes('open to every user'));
    expect(warn).toMatchObject({ level: 40, stateDir: h.stateDir, msg: expect.stringContaining('(mode 0755)') });
    p.child.kill('SIGTERM');
    expect((await p.done).code).toBe(0);

    chmodSync(h.stateDir, 0o700);
    const q = startCli(['run'], h.env({ BRIDGE_SESSIONS: 's1', LOG_LEVEL: 'info' }));
    await q.waitFor(/"version"/);
    await new Promise((r) => setTimeout(r, 300));
    q.child.kill('SIGTERM');
    const res = await q.done;
    expect(res.code).toBe(0);
    expect(res.stderr).not.toContain('state directory');
  });
});
