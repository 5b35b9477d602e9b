// `top` as a person runs it (a child process, not a terminal, so it prints one plain table) against a
// real bridge on real sockets, following simulated sessions and delivering to a real receiver.
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { eventually, startInProcess, worldPerTest } from '../server/bridge-harness.js';
import { runCli } from './cli-process.js';

const t = worldPerTest();

const TOKEN = 'top-secret-token';

describe('top', () => {
  it('prints the bridge, the exporter, the spool and every session in a plain table when not on a terminal', async () => {
    const a = t.world.sim.createSession('sess_a');
    t.world.sim.createSession('sess_b');
    t.running = await startInProcess(t.world, {
      sessions: ['sess_a', 'sess_b'],
      control_token: TOKEN,
      spool: { max_bytes: '16MiB' },
    });
    a.emit(25);
    await eventually(
      () => (t.running!.bridge.supervisor.session('sess_a')?.lastDeliveredSeq ?? 0) >= 25 || undefined,
      'delivery of sess_a',
    );

    const res = await runCli(['top', '--url', t.running.url, '--sort', 'id'], { BRIDGE_CONTROL_TOKEN: TOKEN });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^bridge \\d+\\.\\d+\\.\\d+\\S* at ${t.running.url.replace(/[.]/g, '\\.')}   sessions 2 \\(2 streaming\\)   received \\d`,
      ),
    );
    expect(lines[1]).toMatch(
      /^exporter delivered \d+(\.\d)?\/s, failed 0\.0\/s \(0 failed requests\) {3}spool .* \/ 16\.0 MiB \(\d+%\), \d+ records, oldest \d+s$/,
    );
    expect(lines[2]).toBe('');
    expect(lines[3]).toMatch(/^SESSION\s+STATE\s+SOURCE\s+RATE\/s\s+LAG\s+GAPS\s+MISSING\s+RECONN\s+LAST ERROR$/);
    expect(lines[4]).toMatch(/^sess_a\s+streaming\s+config\s+\d+(\.\d)?\s+0\s+0\s+0\s+0\s+-$/);
    expect(lines[5]).toMatch(/^sess_b\s+streaming\s+config\s+0\.0\s+0\s+0\s+0\s+0\s+-$/);
    expect(lines).toHaveLength(6);
  });

  it('says why the exporter fails, and an ended session carries no error', async () => {
    const closed = await closedPort();
    const a = t.world.sim.createSession('sess_a');
    t.running = await startInProcess(
      t.world,
      { sessions: ['sess_a'] },
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closed}`,
      },
    );
    a.emit(5);
    await eventually(() => t.running!.bridge.delivery.exportFailing || undefined, 'the exporter failing');
    a.end();
    await eventually(() => t.running!.bridge.supervisor.session('sess_a')?.state === 'ended' || undefined, 'the end');

    const res = await runCli(['top', '--url', t.running.url], {});
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[2]).toMatch(new RegExp(`^exporter failing: .*ECONNREFUSED`));
    expect(lines.at(-1)).toMatch(/^sess_a\s+ended\s+config\s+\S+\s+\d+\s+0\s+0\s+\d+\s+-$/);
  });

  it('says what a session waiting on an owed gap waits for, and how long before the gap is recorded as lost', async () => {
    const a = t.world.sim.createSession('sess_a');
    a.emit(5);
    // Every archive read fails: the gap is owed for the minute of the default archive_retry.
    t.world.sim.faults.archiveFailNext = Array.from({ length: 100 }, () => ({ status: 503 }));
    const bad = a.injectMalformed('json');
    a.emit(5);
    t.running = await startInProcess(t.world, { sessions: ['sess_a'], upstream: { archive_retry: '1m' } });
    const owed = await eventually(() => t.running!.bridge.supervisor.session('sess_a')?.owedGap, 'the gap owed');
    expect(owed).toMatchObject({ firstSeq: bad, lastSeq: bad, detail: expect.stringMatching(/503/) as unknown });
    expect(Date.parse(owed.until) - Date.parse(owed.since)).toBe(60_000);

    const metrics = await (await fetch(`${t.running.url}/metrics`)).text();
    expect(metrics).toMatch(/^bridge_archive_owed_gaps 1$/m);

    const res = await runCli(['top', '--url', t.running.url], {});
    expect(res.code).toBe(0);
    expect(res.stdout.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(
        `^sess_a\\s+streaming\\s+config\\s+\\S+\\s+\\d+\\s+0\\s+0\\s+0\\s+archive unreadable, waiting for event #${bad}: HTTP 503.*; recorded as lost in \\d+s unless read$`,
      ),
    );
  });

  it("says when the shared store does not answer and the other replicas' sessions are not current", async () => {
    // A replica's surface as it answers while PostgreSQL is frozen (server/sessions-route.ts).
    const surface = createHttpServer((req, res) => {
      const body =
        req.url === '/v1/sessions'
          ? JSON.stringify({
              replica: 'r1',
              othersStale: { ageMs: 7178 },
              sessions: [
                {
                  id: 's1',
                  state: 'streaming',
                  owner: 'r1',
                  lastReceivedSeq: 3,
                  lastDeliveredSeq: 3,
                  received: 3,
                  gaps: 0,
                  missingEvents: 0,
                  reconnects: {},
                },
              ],
            })
          : req.url === '/metrics'
            ? 'bridge_events_delivered_total 3\n'
            : '{}';
      res.writeHead(200, { 'content-type': req.url === '/metrics' ? 'text/plain' : 'application/json' }).end(body);
    });
    await new Promise<void>((r) => surface.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = surface.address() as AddressInfo;
      const res = await runCli(['top', '--url', `http://127.0.0.1:${port}`], {});
      expect(res.stderr).toBe('');
      expect(res.stdout.split('\n')[2]).toBe("store not answering: other replicas' sessions as of 7s ago");
    } finally {
      await new Promise<void>((r) => surface.close(() => r()));
    }
  });

  it('a refused token, an unreachable bridge and bad options are one line each', async () => {
    t.running = await startInProcess(t.world, { control_token: TOKEN });
    const refused = await runCli(['top', '--url', t.running.url], { BRIDGE_CONTROL_TOKEN: 'wrong' });
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: the bridge at ${t.running.url} refused the control token: pass --token or set BRIDGE_CONTROL_TOKEN\n`,
    });

    const closed = await closedPort();
    const down = await runCli(['top', '--once', '--url', `http://127.0.0.1:${closed}`], {});
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^error: cannot reach the bridge at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED \(is it running\? --url or BRIDGE_LISTEN say where\)\n$/,
    );

    const usage = await runCli(['top', '--sort', 'colour'], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('--sort must be one of id, state, rate, lag, gaps, error (got "colour")\n');

    // Longer than a timer waits, the refresh would come every millisecond (setTimeout's 1 ms).
    const forever = await runCli(['top', '--interval', '1000h'], {});
    expect(forever.code).toBe(2);
    expect(forever.stderr).toBe('--interval must be a duration between 100ms and 596h, e.g. 2s (got "1000h")\n');
  });

  // The image listens on 0.0.0.0 and, without a control token, keeps /v1/sessions closed: `top` in
  // the container then has to say so in a sentence, not as a cut-off piece of the JSON answer.
  it('a bridge whose control API is closed says why in one line, not as raw JSON', async () => {
    t.running = await startInProcess(t.world, {}, { BRIDGE_LISTEN: '0.0.0.0:0' });
    const port = new URL(t.running.url).port;
    const res = await runCli(['top', '--once', '--url', `http://127.0.0.1:${port}`], {});
    expect(res).toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        `error: the bridge at http://127.0.0.1:${port} refused GET /v1/sessions (403 forbidden): the control API is disabled: ` +
        'the bridge listens beyond loopback and no BRIDGE_CONTROL_TOKEN is set (set one, or BRIDGE_CONTROL_INSECURE=true to open it anyway)\n',
    });
  });
});

/** A loopback port nothing listens on (bound once, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
