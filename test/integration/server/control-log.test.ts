// Changes through the control API leave a line in the daemon's log (who asked and what changed);
// a refused change too. The real `run` in a child process, its JSON log read from stderr.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../helpers/harness.js';
import { startCli, type CliProcess } from '../cli/cli-process.js';
import { freePort } from '../../helpers/free-port.js';

let h: Harness;
let daemon: CliProcess | undefined;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  if (daemon && daemon.child.exitCode === null) {
    daemon.child.kill('SIGTERM');
    await daemon.done;
  }
  daemon = undefined;
  await h.close();
});

const TOKEN = 'control-token-never-logged';

describe('control API log lines', () => {
  it('PUT (added, then replaced), DELETE and every refused change each log one line; the token never', async () => {
    h.sim.createSession('c1');
    const port = await freePort();
    daemon = startCli(['run'], {
      ...h.env({ BRIDGE_LISTEN: `127.0.0.1:${port}`, BRIDGE_CONTROL_TOKEN: TOKEN }),
      LOG_LEVEL: 'info',
    });
    await daemon.waitFor(/HTTP surface listening/);
    const url = `http://127.0.0.1:${port}/v1/sessions/c1`;
    const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    expect((await fetch(url, { method: 'PUT', headers: auth, body: JSON.stringify({ pool: 'p1' }) })).status).toBe(201);
    expect((await fetch(url, { method: 'PUT', headers: auth, body: JSON.stringify({ start: 'latest' }) })).status).toBe(
      200,
    );
    expect((await fetch(url, { method: 'DELETE', headers: auth })).status).toBe(204);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(401);
    // Refused for what it asks, not for who asks: a line too.
    expect(
      (await fetch(url, { method: 'PUT', headers: auth, body: JSON.stringify({ start: 'yesterday' }) })).status,
    ).toBe(400);
    expect((await fetch(`${url}-typo`, { method: 'DELETE', headers: auth })).status).toBe(404);
    // Reads refused are not logged (scanners, probes).
    expect((await fetch(url)).status).toBe(401);
    await daemon.waitFor(
      /control API: change refused.*\n(.|\n)*control API: change refused.*\n(.|\n)*control API: change refused/,
    );
    const lines = daemon
      .stderr()
      .split('\n')
      .filter((l) => l.includes('control API:'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.msg)).toEqual([
      'control API: session added; followed from now on and after a restart',
      'control API: session settings replaced',
      'control API: session removed; no longer followed',
      'control API: change refused',
      'control API: change refused',
      'control API: change refused',
    ]);
    expect(lines[0]).toMatchObject({ level: 30, session: 'c1', pool: 'p1', remote: '127.0.0.1' });
    expect(lines[1]).toMatchObject({ session: 'c1', start: 'latest' });
    expect(lines[3]).toMatchObject({ level: 40, method: 'DELETE', status: 401, code: 'unauthorized' });
    expect(lines[4]).toMatchObject({ level: 40, method: 'PUT', status: 400, code: 'invalid_input' });
    expect(lines[5]).toMatchObject({ level: 40, method: 'DELETE', status: 404, path: '/v1/sessions/c1-typo' });
    expect(daemon.stderr()).not.toContain(TOKEN);
  });
});
