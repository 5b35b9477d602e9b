// A session that never existed (a mistyped id) is not a session that ended: `run --until-ended`
// (a real child process) exits non-zero naming it, its status says `unknown` with an error, the
// log warns; PUT /v1/sessions/<typo> answers 404 and follows nothing. A session that did exist and
// ended (the service still finds it with include_deleted=true) ends as before.
import { afterEach, describe, expect, it } from 'vitest';
import { exited, harness, spawnDaemon, surfaceUrl, until, type Harness } from '../../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

describe('an unknown session', () => {
  it('run --until-ended with a mistyped id next to a real one exits non-zero naming it', async () => {
    h = await harness();
    const s = h.sim.createSession('real-1');
    s.emit(20);
    s.end();
    const d = spawnDaemon(h.env({ BRIDGE_SESSIONS: 'real-1,reel-1', LOG_LEVEL: 'info' }), ['run', '--until-ended']);
    const code = await exited(d);
    expect(code, d.output()).not.toBe(0);
    expect(code).not.toBe(null);
    expect(d.output()).toMatch(/error: the service does not know session\(s\) reel-1/);
    expect(d.output()).toMatch(/"level":40[^\n]*"session":"reel-1"[^\n]*does not know this session/);
    // The real session ended and was delivered; only it is reported as ended.
    expect(h.tally(['real-1'])[0]).toMatchObject({ unique: 20, missing: 0 });
    expect(d.output()).not.toMatch(/"session":"reel-1"[^\n]*"msg":"session ended"/);
  }, 60_000);

  it('a session that existed and ended still exits 0', async () => {
    h = await harness();
    const s = h.sim.createSession('done-1');
    s.emit(5);
    s.end();
    const d = spawnDaemon(h.env({ BRIDGE_SESSIONS: 'done-1' }), ['run', '--until-ended']);
    expect(await exited(d), d.output()).toBe(0);
  }, 60_000);

  it('status says unknown with an error; PUT of a mistyped id is 404, of a real one 201', async () => {
    h = await harness();
    h.sim.createSession('real-2').emit(3);
    const d = spawnDaemon(h.env({ BRIDGE_SESSIONS: 'typo-2', BRIDGE_LISTEN: '127.0.0.1:0', LOG_LEVEL: 'info' }));
    try {
      await until(() => surfaceUrl(d.output()) !== undefined, 'the HTTP surface');
      const url = surfaceUrl(d.output())!;
      let status: { state?: string; lastError?: string } = {};
      for (let i = 0; i < 200 && status.state !== 'unknown'; i++) {
        status = (await (await fetch(`${url}/v1/sessions/typo-2`)).json()) as typeof status;
        if (status.state !== 'unknown') await new Promise((r) => setTimeout(r, 100));
      }
      expect(status.state).toBe('unknown');
      expect(status.lastError).toMatch(/does not know this session/);
      const put = await fetch(`${url}/v1/sessions/typo-3`, {
        method: 'PUT',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(put.status).toBe(404);
      const ok = await fetch(`${url}/v1/sessions/real-2`, {
        method: 'PUT',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(ok.status).toBe(201);
    } finally {
      d.kill('SIGKILL');
    }
  }, 60_000);
});
