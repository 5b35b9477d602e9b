// `check` as a child process against the simulator and a real OTLP receiver, with the collector up
// and down, and the failures an operator meets first (missing session, bad key, bad config).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { makePool, startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { until } from '../../helpers/harness.js';
import { runCli, startCli } from './cli-process.js';
import { freePort } from '../../helpers/free-port.js';

const KEY = 'sk-check-test-never-printed';
const HEADER_SECRET = 'collector-token-never-printed';

let sim: Simulator;
let receiver: Receiver;
let dir: string;
let env: Record<string, string>;

beforeEach(async () => {
  sim = await startSimulator({ apiKeys: [KEY] });
  receiver = await startReceiver();
  dir = mkdtempSync(join(tmpdir(), 'check-test-'));
  sim.addPool(makePool({ id: 'pool_1', name: 'scrapers', region: 'eu-west' }));
  sim.createSession('s1');
  sim.createSession('s2', { pool: 'scrapers' });
  env = {
    BROWSER_API_URL: sim.url,
    BROWSER_API_KEY: KEY,
    BRIDGE_SESSIONS: 's1,s2',
    BRIDGE_STATE_DIR: join(dir, 'state'),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer ${HEADER_SECRET}`,
  };
});

afterEach(async () => {
  await sim.close();
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

const mark = (stdout: string, label: string): string | undefined =>
  stdout
    .split('\n')
    .find((l) => l.slice(2).startsWith(label))
    ?.slice(0, 1);

describe('check', () => {
  it('all ✓ with the service, the sessions and the collector up: exit 0, no secret printed', async () => {
    const res = await runCli(['check'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^✓ configuration\s+environment: 2 sessions, 0 pools$/m);
    expect(res.stdout).toMatch(new RegExp(`^✓ service\\s+${sim.url} reachable, API key accepted$`, 'm'));
    expect(res.stdout).toMatch(/^✓ session s1\s+stream opens \(200 text\/event-stream\)$/m);
    expect(res.stdout).toMatch(/^✓ session s2\s+stream opens/m);
    expect(res.stdout).toMatch(
      new RegExp(`^✓ collector\\s+${receiver.logsUrl} accepted an empty export \\(200, http/protobuf\\)$`, 'm'),
    );
    expect(res.stdout).toMatch(/^✓ state dir\s+.*can be created and written/m);
    expect(res.stdout).toMatch(/^✓ spool\s+mode overflow \(records wait in memory.*\); the archive answers$/m);
    expect(res.stdout).toMatch(/all 7 checks passed\n$/);
    expect(res.stdout + res.stderr).not.toContain(KEY);
    expect(res.stdout + res.stderr).not.toContain(HEADER_SECRET);
    // The empty export reached the collector as a real, empty OTLP request with the configured headers.
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]).toMatchObject({ status: 200, records: 0, contentType: 'application/x-protobuf' });
    expect(receiver.requests[0]?.headers.authorization).toBe(`Bearer ${HEADER_SECRET}`);
    // The probes closed their streams at once.
    expect(sim.stats.activeStreams).toBe(0);
  });

  it('✗ collector: https:// against a plaintext port says so, not only the OpenSSL code', async () => {
    const res = await runCli(['check'], {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url.replace('http:', 'https:'),
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(
      /^✗ collector\s+https:\S+: ERR_SSL_\w+: TLS to a port that speaks plaintext \(write the URL with http:\/\/, or use the TLS port\)$/m,
    );
  });

  it('✗ collector with the reason when it is down: exit 1', async () => {
    await receiver.stop();
    const res = await runCli(['check'], env);
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(new RegExp(`^✗ collector\\s+${receiver.logsUrl}: connection refused`, 'm'));
    expect(mark(res.stdout, 'service')).toBe('✓');
    expect(res.stdout).toMatch(/1 of 7 checks failed\n$/);
  });

  it('uses the configured protocol, compression and headers; a refused credential is explained', async () => {
    const json = await runCli(['check'], {
      ...env,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
    });
    expect(json.code).toBe(0);
    expect(json.stdout).toContain('(200, http/json, gzip)');
    expect(receiver.requests[0]).toMatchObject({
      contentType: 'application/json',
      contentEncoding: 'gzip',
      records: 0,
      status: 200,
    });

    receiver.behaviour = { status: 401 };
    const refused = await runCli(['check'], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /^✗ collector\s+.* answered 401 Unauthorized \(http\/protobuf\): the collector refused the credentials/m,
    );
    expect(refused.stdout).not.toContain(HEADER_SECRET);

    // Without configured headers a 401 is not blamed on them.
    const { OTEL_EXPORTER_OTLP_HEADERS: _headers, ...bare } = env;
    const noHeaders = await runCli(['check'], bare);
    expect(noHeaders.stdout).toMatch(
      /^✗ collector\s+.* answered 401 Unauthorized \(http\/protobuf\): the collector wants credentials and none are configured: set them with OTEL_EXPORTER_OTLP_HEADERS/m,
    );
  });

  it('✗ for a session that does not exist, with the reason', async () => {
    const res = await runCli(['check'], { ...env, BRIDGE_SESSIONS: 's1,gone' });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(
      /^✗ session gone\s+session not found: the service does not know it \(404 not_found: browser session gone not found\)$/m,
    );
    expect(mark(res.stdout, 'session s1')).toBe('✓');
  });

  it('a session that ended is not a failure: ✓ saying it ended, and the run reads what the archive kept', async () => {
    const done = sim.createSession('done-1');
    done.emit(3);
    sim.faults.endedServerErrors = 0;
    done.end();
    const res = await runCli(['check'], { ...env, BRIDGE_SESSIONS: 's1,done-1' });
    expect(res.stdout).toMatch(
      /^✓ session done-1\s+ended \(the service knows it; its stream is closed\): run delivers what it has not yet delivered from the service's archive$/m,
    );
    expect(res.code, res.stdout).toBe(0);
  });

  it('warns about a session that exports its telemetry itself, naming the bridge collector when it is the same', async () => {
    sim.createSession('self', { otlpExport: { enabled: true, destination: receiver.url } });
    sim.createSession('elsewhere', { otlpExport: { enabled: true, destination: 'prod-destination' } });
    sim.createSession('off', { otlpExport: { enabled: false, destination: 'prod-destination' } });
    const res = await runCli(['check'], { ...env, BRIDGE_SESSIONS: 'self,elsewhere,off' });
    expect(res.code).toBe(0);
    const after = (label: string): string => {
      const lines = res.stdout.split('\n');
      const i = lines.findIndex((l) => l.slice(2).startsWith(label));
      return lines.slice(i + 1, i + 3).join('\n');
    };
    expect(after('session self')).toContain(
      'to the same collector the bridge delivers to: every event arrives there twice',
    );
    expect(after('session elsewhere')).toContain('(destination prod-destination): with the bridge following it too');
    expect(res.stdout).not.toMatch(/session off[^\n]*\n[^\n]*exports its telemetry/);
  });

  it('warns about a configured session that is a name, naming the id to configure', async () => {
    sim.createSession('named-1', { name: 'nightly' });
    const res = await runCli(['check'], { ...env, BRIDGE_SESSIONS: 'nightly' });
    expect(res.code).toBe(0);
    expect(mark(res.stdout, 'session nightly')).toBe('✓');
    expect(res.stdout).toContain('"nightly" is the name of session named-1: configure the id');
  });

  it('looks up each configured pool: found (with its telemetry), not found', async () => {
    const cfg = join(dir, 'bridge.yaml');
    writeFileSync(cfg, 'sessions:\n  - id: s2\n    pool: scrapers\n  - id: s1\n    pool: no-such-pool\n');
    const res = await runCli(['check', '--config', cfg], { ...env, BRIDGE_SESSIONS: '' });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^✓ configuration\s+.*bridge\.yaml \+ environment: 2 sessions, 2 pools$/m);
    expect(res.stdout).toMatch(/^✓ pool scrapers\s+scrapers \(pool_1\), eu-west, 10 of 10 telemetry categories on$/m);
    expect(res.stdout).toMatch(/^✗ pool no-such-pool\s+pool not found \(404 not_found/m);
  });

  it('a rejected API key fails the service check and skips what depends on it', async () => {
    const res = await runCli(['check'], { ...env, BROWSER_API_KEY: 'wrong-key' });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(
      /^✗ service\s+.* rejected the API key: unauthorized: Missing or invalid authorization token/m,
    );
    expect(res.stdout).toMatch(/^– session s1\s+skipped: the API key was rejected$/m);
    expect(res.stdout).not.toContain('wrong-key');
    // The archive is not asked with the key the service refused: the spool line says so.
    expect(res.stdout).toMatch(/^– spool\s+mode overflow .*; archive not asked: the service check failed$/m);
  });

  it('an unreachable service: neither the sessions nor the archive are asked (a silent one costs each its timeout)', async () => {
    const res = await runCli(['check'], { ...env, BROWSER_API_URL: 'http://127.0.0.1:9' });
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/^– session s1\s+skipped: the service is unreachable$/m);
    expect(res.stdout).toMatch(/^– spool\s+mode overflow .*; archive not asked: the service check failed$/m);
  });

  it('without sessions or pools, authentication is checked with a lookup', async () => {
    const ok = await runCli(['check'], { ...env, BRIDGE_SESSIONS: '' });
    expect(ok.code).toBe(0);
    expect(mark(ok.stdout, 'service')).toBe('✓');
    const down = await runCli(['check'], { ...env, BRIDGE_SESSIONS: '', BROWSER_API_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^✗ service\s+cannot reach http:\/\/127\.0\.0\.1:9: connection refused/m);
  });

  it('pointed at the OTLP receiver: "this is not the session service", not a green service', async () => {
    for (const sessions of ['s1', '']) {
      const res = await runCli(['check'], { ...env, BRIDGE_SESSIONS: sessions, BROWSER_API_URL: receiver.url });
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(
        new RegExp(
          `^✗ service\\s+this is not the session service: ${receiver.url} answered GET /(browsers/s1/telemetry/stream|browser_pools/bridge-check-\\w+) with 404 without the service's Error shape`,
          'm',
        ),
      );
      if (sessions) expect(res.stdout).toMatch(/^– session s1\s+skipped: this is not the session service$/m);
    }
  });

  it('a wrong base path: "wrong base path", with or without sessions; a missing session at the right one is not', async () => {
    for (const sessions of ['s1,s2', '']) {
      const res = await runCli(['check'], { ...env, BRIDGE_SESSIONS: sessions, BROWSER_API_URL: `${sim.url}/api/v1` });
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(
        new RegExp(
          `^✗ service\\s+wrong base path: at ${sim.url}/api/v1, GET /\\S+ answers like a route that does not exist \\(404 not_found: no route for /api/v1/`,
          'm',
        ),
      );
      expect(mark(res.stdout, 'service')).toBe('✗');
    }
    const missing = await runCli(['check'], { ...env, BRIDGE_SESSIONS: 'gone' });
    expect(mark(missing.stdout, 'service')).toBe('✓');
    expect(mark(missing.stdout, 'session gone')).toBe('✗');
  });

  it('state dir: a file is "a file, not a directory"; one a running bridge holds is busy', async () => {
    const file = join(dir, 'plain-file');
    writeFileSync(file, '');
    const asFile = await runCli(['check'], { ...env, BRIDGE_STATE_DIR: file });
    expect(asFile.stdout).toMatch(new RegExp(`^✗ state dir\\s+${file} is a file, not a directory$`, 'm'));

    const stateDir = join(dir, 'held');
    const daemon = startCli(['run'], { ...env, BRIDGE_STATE_DIR: stateDir, BRIDGE_LISTEN: 'off', LOG_LEVEL: 'info' });
    try {
      await daemon.waitFor(/HTTP surface off/);
      await until(() => sim.stats.activeStreams >= 2, 'the daemon to stream');
      const busy = await runCli(['check'], { ...env, BRIDGE_STATE_DIR: stateDir, BRIDGE_LISTEN: 'off' });
      expect(busy.code).toBe(1);
      expect(busy.stdout).toMatch(
        new RegExp(
          `^✗ state dir\\s+${stateDir} is busy: another bridge process holds it, and a second one here would refuse to start \\(BRIDGE_LISTEN is off here`,
          'm',
        ),
      );
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.done;
    }
    const free = await runCli(['check'], { ...env, BRIDGE_STATE_DIR: stateDir });
    expect(free.stdout).toMatch(new RegExp(`^✓ state dir\\s+${stateDir} is writable$`, 'm'));
  });

  it("next to a running daemon: the state check asks that daemon's /readyz, and check passes", async () => {
    const stateDir = join(dir, 'running');
    const port = await freePort();
    const daemonEnv = { ...env, BRIDGE_STATE_DIR: stateDir, BRIDGE_LISTEN: `127.0.0.1:${port}` };
    const daemon = startCli(['run'], { ...daemonEnv, LOG_LEVEL: 'info' });
    try {
      await daemon.waitFor(/HTTP surface listening/);
      await until(() => sim.stats.activeStreams >= 2, 'the daemon to stream');
      const res = await runCli(['check'], daemonEnv);
      expect(res.stdout).toMatch(
        new RegExp(
          `^✓ state dir\\s+${stateDir} is in use by the running bridge, which reports ready at http://127\\.0\\.0\\.1:${port}/readyz$`,
          'm',
        ),
      );
      expect(res.stdout).toMatch(/all 7 checks passed\n$/);
      expect(res.code).toBe(0);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.done;
    }
  });

  it('the closing count counts every line shown, skipped ones too', async () => {
    const res = await runCli(['check'], { ...env, BROWSER_API_KEY: 'wrong' });
    const shown = res.stdout.split('\n').filter((l) => /^[✓✗–] /.test(l)).length;
    expect(res.stdout).toMatch(new RegExp(`\\n1 of ${shown} checks failed, 3 skipped\\n$`));
  });

  it('invalid configuration: ✗ with the key, exit 2', async () => {
    const res = await runCli(['check'], { ...env, BRIDGE_START: 'yesterday' });
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('✗ configuration  BRIDGE_START: must be one of oldest, latest (got "yesterday")\n');
    // Several problems: one line each under the ✗, as run and validate print them, not one line
    // joined with ⏎ marks.
    const two = await runCli(['check'], { ...env, BRIDGE_START: 'yesterday', BRIDGE_DISCOVER: 'maybe' });
    expect(two.code).toBe(2);
    expect(two.stdout).toBe(
      '✗ configuration  2 problems:\n' +
        '                 BRIDGE_START: must be one of oldest, latest (got "yesterday")\n' +
        '                 BRIDGE_DISCOVER: must be true or false (or 1/0, yes/no) (got "maybe")\n',
    );
    const help = await runCli(['check', '--help'], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
  });
});
