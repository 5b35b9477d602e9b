// `tail` as a child process against the simulator: -o json equals the envelopes, the pretty output
// (fixed events, TZ=UTC, no colour), filters, --from, resume after a cut, exit codes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type SimSession, type Simulator } from '../../../src/devkit/simulator/index.js';
import type { Envelope } from '../../../src/upstream/envelope.js';
import { startReceiver } from '../../../src/devkit/receiver/server.js';
import { runCli, startCli, type CliProcess } from './cli-process.js';

let sim: Simulator;
let dir: string;
let env: Record<string, string>;
const running: CliProcess[] = [];

beforeEach(async () => {
  sim = await startSimulator({ seed: 11, keepaliveMs: 500 });
  dir = mkdtempSync(join(tmpdir(), 'tail-test-'));
  // Quick reconnects keep the tests short; everything else comes from the environment.
  writeFileSync(join(dir, 'bridge.yaml'), 'upstream:\n  backoff:\n    initial: 20ms\n    max: 200ms\n');
  env = { BROWSER_API_URL: sim.url, BROWSER_API_KEY: 'sim-key', BRIDGE_CONFIG: join(dir, 'bridge.yaml') };
});

afterEach(async () => {
  for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function tail(args: string[], extraEnv: Record<string, string> = {}): CliProcess {
  const p = startCli(['tail', ...args], { ...env, ...extraEnv });
  running.push(p);
  return p;
}

const lines = (text: string): string[] => text.split('\n').filter(Boolean);

/** A service without an archive (an older one): what the stream did not deliver stays a gap. */
async function withoutArchive(): Promise<void> {
  await sim.close();
  sim = await startSimulator({ seed: 11, keepaliveMs: 500, archiveSize: 0 });
  env.BROWSER_API_URL = sim.url;
}

/** Waits for `n` lines on stdout, then ends the session; resolves with the finished process. */
async function readThenEnd(p: CliProcess, session: SimSession, n: number) {
  // Count lines rather than match a repeated group: that regex grows slow on long lines (screenshots).
  await p.waitFor((text) => countLines(text) >= n, 'stdout');
  session.end();
  return p.done;
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

const TS = 1732100000123456; // 2024-11-20T10:53:20.123456Z

function fixedEvents(s: SimSession): void {
  s.emitEvent({ type: 'console_log', ts: TS, data: { level: 'log', text: 'page ready', args: ['page ready'] } });
  s.emitEvent({
    type: 'network_response',
    ts: TS + 1000,
    data: {
      method: 'GET',
      url: 'https://shop.example/api/cart?token=abc123',
      status: 404,
      status_text: 'Not Found',
      mime_type: 'application/json',
    },
  });
  s.emitEvent({
    type: 'interaction_click',
    ts: TS + 2000,
    data: { selector: 'button#buy', tag: 'BUTTON', text: 'Buy now', x: 320, true: 188 },
  });
  s.injectMalformed('json');
  s.emitEvent({
    type: 'captcha_solve_result',
    ts: TS + 4000,
    data: { captcha_type: 'turnstile', status: 'timeout', duration_ms: 30000, website_host: 'shop.example' },
  });
  s.emitEvent({
    type: 'console_error',
    ts: TS + 5000,
    data: {
      text: 'Uncaught TypeError: x is undefined',
      source_url: 'https://shop.example/app.js',
      line: 12,
      column: 5,
    },
  });
  s.emitEvent({
    type: 'cdp_command',
    ts: TS + 6000,
    data: { method: 'Page.navigate', url_scheme: 'https', transition_type: 'typed' },
  });
  s.emitEvent({ type: 'page_navigation', ts: TS + 7000, data: { url: 'https://shop.example/checkout' } });
}

describe('tail', () => {
  it('-o json prints every envelope exactly as the service sent it, one per line, and exits 0 when the session ends', async () => {
    const s = sim.createSession('s1');
    const sent = s.emit(60);
    const res = await readThenEnd(tail(['s1', '--from', 'oldest', '-o', 'json', '--no-redact']), s, 60);
    expect(res.code).toBe(0);
    expect(lines(res.stdout)).toEqual(sent.map((e) => JSON.stringify(e)));
    expect(res.stderr).toContain('session s1 ended');
  });

  it('-o json masks secrets by default and leaves every other envelope byte for byte', async () => {
    // Network and page events carry the secrets; they are opt-in, as on the real service.
    const s = sim.createSession('s1', { categories: 'all' });
    const sent = s.emit(120);
    const res = await readThenEnd(tail(['s1', '--from', 'oldest', '-o', 'json']), s, 120);
    const got = lines(res.stdout);
    expect(got).toHaveLength(120);
    let maskedCount = 0;
    got.forEach((line, i) => {
      const original = JSON.stringify(sent[i]);
      if (line === original) return;
      maskedCount++;
      expect(line).toContain('REDACTED');
      expect((JSON.parse(line) as Envelope).seq).toBe(sent[i]!.seq);
    });
    expect(maskedCount).toBeGreaterThan(0);
    // URL user-info, signed-URL parameters, API-key headers and secret-named body fields are masked, as exported.
    expect(got.filter((l) => /s3cr3t-p|pa55w0rd|sk_live_|sig=Zm9v/.test(l))).toEqual([]);
  });

  it('pretty output: one readable line per event, gaps and notes on stderr', async () => {
    await withoutArchive();
    const s = sim.createSession('s1');
    fixedEvents(s);
    const res = await readThenEnd(tail(['s1', '--from', 'oldest']), s, 7);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(
      [
        '10:53:20.123 INFO  console_log                page ready  #1',
        '10:53:20.124 WARN  network_response           GET https://shop.example/api/cart?token=REDACTED → 404 Not Found (application/json)  #2',
        '10:53:20.125 INFO  interaction_click          button#buy (320,188) "Buy now"  #3',
        '10:53:20.127 WARN  captcha_solve_result       turnstile timeout shop.example 30.0s  #5',
        '10:53:20.128 ERROR console_error              Uncaught TypeError: x is undefined at https://shop.example/app.js:12:5  #6',
        '10:53:20.129 INFO  cdp_command                Page.navigate https:  #7',
        '10:53:20.130 INFO  page_navigation            https://shop.example/checkout  #8',
        '',
      ].join('\n'),
    );
    expect(lines(res.stderr)).toEqual([
      '· following s1 from the oldest retained event; Ctrl-C to stop',
      '⚠ skipped an undecodable frame (id 4): data is not valid JSON',
      '⚠ gap: event #4 was not received (evicted by the service or undecodable)',
      // The session ends as the real one does: the connection is reset, the next request gets 502,
      // then 404. That is an end, not two failures: no warning precedes it.
      '· session s1 ended',
    ]);
  });

  it('--types and --categories filter; an event matching either list is shown', async () => {
    const s = sim.createSession('s1');
    fixedEvents(s);
    const byType = await readThenEnd(
      tail(['s1', '--from', 'oldest', '--types', 'console_error,page_navigation']),
      s,
      2,
    );
    expect(lines(byType.stdout).map((l) => l.split(/\s+/)[2])).toEqual(['console_error', 'page_navigation']);

    const s2 = sim.createSession('s2');
    fixedEvents(s2);
    const both = await readThenEnd(
      tail(['s2', '--from', 'oldest', '--categories', 'console', '--types', 'cdp_command']),
      s2,
      3,
    );
    expect(lines(both.stdout).map((l) => l.split(/\s+/)[2])).toEqual(['console_log', 'console_error', 'cdp_command']);
  });

  it('--from N starts at sequence number N; the default shows only new events', async () => {
    const s = sim.createSession('s1');
    s.emit(10);
    const from = await readThenEnd(tail(['s1', '--from', '6', '-o', 'json']), s, 5);
    expect(lines(from.stdout).map((l) => (JSON.parse(l) as Envelope).seq)).toEqual([6, 7, 8, 9, 10]);

    const s2 = sim.createSession('s2');
    s2.emit(10);
    const latest = tail(['s2', '-o', 'json']);
    await latest.waitFor(/following s2 from new events/);
    await new Promise((r) => setTimeout(r, 100));
    s2.emit(3);
    const res = await readThenEnd(latest, s2, 3);
    expect(lines(res.stdout).map((l) => (JSON.parse(l) as Envelope).seq)).toEqual([11, 12, 13]);
  });

  it('reconnects after a cut and resumes with Last-Event-ID: nothing lost, nothing twice', async () => {
    const s = sim.createSession('s1');
    const p = tail(['s1', '--from', 'oldest', '-o', 'json', '--no-redact']);
    await p.waitFor(/following s1/);
    sim.faults.cutAfterFrames = 7;
    const sent = [...s.emit(10), ...s.emit(10)];
    await p.waitFor(/reconnect/);
    delete sim.faults.cutAfterFrames;
    const res = await readThenEnd(p, s, 20);
    expect(lines(res.stdout)).toEqual(sent.map((e) => JSON.stringify(e)));
    // The cut is named in the line that says the stream is back, not as a warning of its own.
    // (a code such as ECONNRESET, or the stream parser's reason for a cut inside a chunk)
    expect(res.stderr).toMatch(/^· reconnected after network error \((\w+|HTTP_PARSE: [^)]+)\); resuming after #\d+$/m);
    expect(res.stderr).not.toMatch(/^⚠/m);
  });

  it('exits 1 with the service message on 401, without retrying', async () => {
    sim.createSession('s1');
    const res = await runCli(['tail', 's1'], { ...env, BROWSER_API_KEY: 'wrong' });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('401 unauthorized: Missing or invalid authorization token');
    // One line that says what to check, once (the subscriber's detail already names the key's source).
    expect(lines(res.stderr)).toHaveLength(1);
    expect(res.stderr.match(/check BROWSER_API_KEY/g)).toHaveLength(1);
    expect(res.stderr).not.toContain('wrong');
    expect(sim.stats.byStatus[401]).toBe(1);
  });

  it('exits 1 when the session does not exist (404: not found or ended)', async () => {
    const missing = await runCli(['tail', 'nope'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('session nope not found: it does not exist or has ended');
  });

  it('Ctrl-C prints what it showed (events, filtered, gaps, how long) and exits 130; SIGTERM 143', async () => {
    await withoutArchive();
    const s = sim.createSession('s1');
    fixedEvents(s);
    s.emitEvent({ type: 'console_log', ts: TS + 8000, data: { level: 'log', text: 'last', args: [] } });
    // Of the 8 events, the console category shows 3 (the last one last: every other event was
    // counted before it is printed); the undecodable frame #4 is a gap of one.
    const p = tail(['s1', '--from', 'oldest', '--categories', 'console']);
    await p.waitFor((text) => countLines(text) >= 3, 'stdout');
    p.child.kill('SIGINT');
    const res = await p.done;
    expect(res.code).toBe(130);
    expect(lines(res.stderr).at(-1)).toMatch(
      /^· stopped by SIGINT after \d+\.\d s: 3 events shown, 5 left out by the filters, 1 gap \(1 event not received\), 1 undecodable frame skipped$/,
    );

    const quiet = tail(['s1']);
    await quiet.waitFor(/following s1/);
    quiet.child.kill('SIGTERM');
    const stopped = await quiet.done;
    expect(stopped.code).toBe(143);
    expect(lines(stopped.stderr).at(-1)).toMatch(/^· stopped by SIGTERM after \d+\.\d s: 0 events shown, no gaps$/);
  });

  it('--from oldest reads what the stream no longer holds, and an undecodable frame, from the archive, in order', async () => {
    await sim.close();
    sim = await startSimulator({ seed: 11, keepaliveMs: 500, bufferSize: 5 });
    env.BROWSER_API_URL = sim.url;
    const s = sim.createSession('s1');
    s.emit(20);
    const bad = s.injectMalformed('json');
    s.emit(3);
    const res = await readThenEnd(tail(['s1', '--from', 'oldest', '-o', 'json']), s, 24);
    expect(res.code).toBe(0);
    expect(lines(res.stdout).map((l) => (JSON.parse(l) as Envelope).seq)).toEqual(
      Array.from({ length: 24 }, (_, i) => i + 1),
    );
    expect(bad).toBe(21);
    expect(res.stderr).not.toMatch(/gap/);
  });

  it('--from oldest with the archive unreadable: says why, then the gap, then the events after it', async () => {
    await sim.close();
    sim = await startSimulator({ seed: 11, keepaliveMs: 500, bufferSize: 5 });
    env.BROWSER_API_URL = sim.url;
    sim.faults.archiveFailNext = Array.from({ length: 3 }, () => ({ status: 503 }));
    const s = sim.createSession('s1');
    s.emit(20);
    const res = await readThenEnd(tail(['s1', '--from', 'oldest', '-o', 'json']), s, 5);
    expect(res.code).toBe(0);
    expect(lines(res.stdout).map((l) => (JSON.parse(l) as Envelope).seq)).toEqual([16, 17, 18, 19, 20]);
    expect(lines(res.stderr).slice(1, 3)).toEqual([
      expect.stringMatching(/^⚠ the service's archive could not be read for #1–#15: HTTP 503\b/),
      '⚠ gap: 15 events (#1–#15) were not received (evicted by the service or undecodable)',
    ]);
  });

  it('a session that had already ended: --from oldest or N reads it from the archive; new events only says it ended; all exit 0, an unreadable archive 1', async () => {
    const s = sim.createSession('s1');
    const sent = s.emit(10);
    // Ended a while ago: past the 502s of its last moments, its stream answers 404.
    sim.faults.endedServerErrors = 0;
    s.end();
    const all = await runCli(['tail', 's1', '--from', 'oldest', '-o', 'json', '--no-redact'], env);
    expect(all.code).toBe(0);
    expect(lines(all.stdout)).toEqual(sent.map((e) => JSON.stringify(e)));
    expect(lines(all.stderr)).toEqual(["· session s1 had ended: 10 event(s) read from the service's archive"]);

    const some = await runCli(['tail', 's1', '--from', '7', '-o', 'json'], env);
    expect(some.code).toBe(0);
    expect(lines(some.stdout).map((l) => (JSON.parse(l) as Envelope).seq)).toEqual([7, 8, 9, 10]);

    // An ended session is not an error: nothing new will come, and the way to its events is named.
    const latest = await runCli(['tail', 's1'], env);
    expect(latest.code).toBe(0);
    expect(latest.stdout).toBe('');
    expect(lines(latest.stderr)).toEqual([
      "· session s1 has ended: no new events will come (--from oldest reads what the service's archive kept)",
    ]);
    const beyond = await runCli(['tail', 's1', '--from', '11'], env);
    expect(beyond.code).toBe(0);
    expect(lines(beyond.stderr)).toEqual([
      "· session s1 has ended; the service's archive has no event at or after #11",
    ]);

    // An archive that cannot be read now is not one without the events: say why, and fail.
    sim.faults.archiveFailNext = Array.from({ length: 3 }, () => ({ status: 503 }));
    const unreadable = await runCli(['tail', 's1', '--from', 'oldest'], env);
    expect(unreadable.code).toBe(1);
    expect(unreadable.stdout).toBe('');
    expect(lines(unreadable.stderr)).toEqual([
      expect.stringMatching(
        /^✗ session s1 had ended, and the service's archive could not be read: HTTP 503\b.*; try again later$/,
      ),
    ]);
  });

  it('--from N beyond the latest event says it waits for #N, then shows #N when it comes', async () => {
    const s = sim.createSession('s1');
    for (let i = 0; i < 5; i++)
      s.emitEvent({ type: 'console_log', ts: TS + i, data: { level: 'log', text: `early ${i}`, args: [] } });
    const p = tail(['s1', '--from', '8', '-o', 'json']);
    await p.waitFor(/nothing at or after #8 yet: the session has not reached #8; waiting for it/);
    expect(p.stdout()).toBe('');
    for (let i = 5; i < 8; i++)
      s.emitEvent({ type: 'console_log', ts: TS + i, data: { level: 'log', text: `late ${i}`, args: [] } });
    await p.waitFor(/\n/, 'stdout');
    expect((JSON.parse(lines(p.stdout())[0]!) as Envelope).seq).toBe(8);
    s.end();
    expect((await p.done).code).toBe(0);
  });

  it('a wrong base path is named as such, not as a missing session; a non-service too', async () => {
    sim.createSession('s1');
    const wrong = await runCli(['tail', 's1'], { ...env, BROWSER_API_URL: `${sim.url}/api/v1` });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      new RegExp(
        `wrong base path: at ${sim.url}/api/v1, GET /browsers/s1/telemetry/stream answers like a route that does not exist`,
      ),
    );
    expect(wrong.stderr).not.toContain('not found: it does not exist');
    const receiver = await startReceiver();
    try {
      const other = await runCli(['tail', 's1'], { ...env, BROWSER_API_URL: receiver.url });
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(
        `this is not the session service: ${receiver.url} answered GET /browsers/s1/telemetry/stream with 404`,
      );
    } finally {
      await receiver.close();
    }
  });

  it('with the service down it names the URL it tries and what to check', async () => {
    const p = tail(['s1'], { BROWSER_API_URL: 'http://127.0.0.1:9' });
    await p.waitFor(/reconnecting/);
    expect(p.stderr()).toMatch(
      /network error \(ECONNREFUSED\) at http:\/\/127\.0\.0\.1:9 \(is BROWSER_API_URL right, and the service up\?\); reconnecting in \d+ m?s \(tail keeps trying until the service answers; Ctrl-C stops it\)$/m,
    );
    p.child.kill('SIGINT');
    expect((await p.done).code).toBe(130);
  });

  it("a mistyped option is one line with the option meant, not the parser's text and the help", async () => {
    const res = await runCli(['tail', 's1', '--form', 'oldest'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe('unknown option --form; did you mean --from? (--help for the options)\n');
    expect((await runCli(['tail', 's1', '--from'], env)).stderr).toBe(
      'option --from needs a value (--help for the options)\n',
    );
    expect((await runCli(['tail', 's1', '--from', '-3'], env)).stderr).toBe(
      'option --from needs a value; one that starts with "-" is written --from=-… (--help for the options)\n',
    );
  });

  it('bad usage exits 2 with the help', async () => {
    const res = await runCli(['tail'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('Usage: browser-telemetry-bridge tail <session>');
    expect((await runCli(['tail', 's1', '--from', 'yesterday'], env)).code).toBe(2);
    const help = await runCli(['tail', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('401/403');
  });
});
