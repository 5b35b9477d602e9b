// The bridge's peers paused, as the README runs them: `simulate`, `receive` and `run --until-ended`,
// three real processes on loopback. The service is stopped with SIGSTOP past the bridge's idle
// timeout (its streams fall silent, new connections are accepted by the kernel and never answered),
// then the collector past the export timeout (requests hang); each is continued, and every event of
// the session must arrive, with no gap record. An OTLP/gRPC collector stopped for less than the
// export timeout costs no duplicate either: the calls in flight are answered when it continues.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from './cli-process.js';

const running: CliProcess[] = [];
let dir: string | undefined;
afterEach(() => {
  for (const p of running.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function start(args: string[], env: Record<string, string> = {}): CliProcess {
  const p = startCli(args, env);
  running.push(p);
  return p;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Seqs of session `id` among the receiver's JSON lines, how many came more than once, and the gap records. */
function received(out: string, id: string): { seqs: Set<number>; twice: number; gaps: number } {
  const seqs = new Set<number>();
  let twice = 0;
  let gaps = 0;
  // The receiver may be mid-write: the text after the last newline is a line not yet complete.
  for (const line of out.slice(0, out.lastIndexOf('\n') + 1).split('\n')) {
    if (!line.startsWith('{')) continue;
    const r = JSON.parse(line) as { eventName?: string; attributes?: Record<string, unknown> };
    if (r.attributes?.['browser.session.id'] !== id) continue;
    if (r.eventName === 'browser.telemetry_gap') gaps++;
    else {
      const seq = Number(r.attributes['browser.telemetry.seq']);
      if (seqs.has(seq)) twice++;
      seqs.add(seq);
    }
  }
  return { seqs, twice, gaps };
}

async function eventually(probe: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('paused peers', () => {
  it('the service, then the collector, stopped past the idle and export timeouts: every event arrives once they continue', async () => {
    const sim = start(['simulate', '--port', '0', '--sessions', 'pp-1', '--rate', '100']);
    const recv = start(['receive', '--port', '0']);
    await sim.waitFor(/\{"url":"[^"]+"\}\n/, 'stdout');
    await recv.waitFor(/listening on \S+/);
    const simUrl = (JSON.parse(sim.stdout()) as { url: string }).url;
    const logsUrl = /listening on (\S+)/.exec(recv.stderr())![1]!;
    dir = mkdtempSync(join(tmpdir(), 'paused-peers-'));
    const config = join(dir, 'bridge.yaml');
    writeFileSync(
      config,
      'upstream: { idle_timeout: 1s, connect_timeout: 1s, backoff: { initial: 50ms, max: 500ms } }\nexporter: { timeout: 1s, backoff: { initial: 50ms, max: 500ms } }\n',
    );
    const bridge = start(['run', '--until-ended'], {
      BROWSER_API_URL: simUrl,
      BROWSER_API_KEY: 'sim-key',
      BRIDGE_SESSIONS: 'pp-1',
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: logsUrl,
      BRIDGE_STATE_DIR: join(dir, 'state'),
      BRIDGE_CONFIG: config,
      BRIDGE_LISTEN: 'off',
    });
    const count = (): number => received(recv.stdout(), 'pp-1').seqs.size;
    await eventually(() => count() > 50, 'the first events at the receiver');

    // The service paused: three idle timeouts' worth (the pause is the test's, not an assertion).
    sim.child.kill('SIGSTOP');
    await sleep(3000);
    sim.child.kill('SIGCONT');
    const afterService = count();
    await eventually(() => count() > afterService + 50, 'events again after the service continued');

    // The collector paused: requests in flight and new ones hang past the export timeout.
    recv.child.kill('SIGSTOP');
    await sleep(3000);
    recv.child.kill('SIGCONT');
    const afterCollector = count();
    await eventually(() => count() > afterCollector + 50, 'events again after the collector continued');

    const ctl = async (path: string): Promise<{ lastSeq: number }> =>
      (await (await fetch(`${simUrl}/_sim/sessions/pp-1${path}`, { method: 'POST' })).json()) as { lastSeq: number };
    await ctl('/produce?rate=0');
    const { lastSeq } = await ctl('/end');
    expect(lastSeq).toBeGreaterThan(200);
    await eventually(() => bridge.child.exitCode !== null, 'the bridge to exit once the session ended', 60_000);
    expect(bridge.child.exitCode, bridge.stderr()).toBe(0);
    const got = received(recv.stdout(), 'pp-1');
    const missing = Array.from({ length: lastSeq }, (_, i) => i + 1).filter((s) => !got.seqs.has(s));
    expect(missing.slice(0, 20), `${missing.length} missing of ${lastSeq}`).toEqual([]);
    expect(got.gaps).toBe(0);
  }, 120_000);

  it('an OTLP/gRPC collector stopped for less than exporter.timeout: every event arrives, none twice', async () => {
    const sim = start(['simulate', '--port', '0', '--sessions', 'pg-1', '--rate', '100']);
    const recv = start(['receive', '--port', '0', '--grpc-port', '0']);
    await sim.waitFor(/\{"url":"[^"]+"\}\n/, 'stdout');
    await recv.waitFor(/OTLP\/gRPC logs receiver listening on \S+/);
    const simUrl = (JSON.parse(sim.stdout()) as { url: string }).url;
    const grpcUrl = /OTLP\/gRPC logs receiver listening on (\S+)/.exec(recv.stderr())![1]!;
    dir = mkdtempSync(join(tmpdir(), 'paused-grpc-'));
    const config = join(dir, 'bridge.yaml');
    // The pause (2 s) is well inside the export timeout (20 s): the calls in flight get their answers
    // once the collector continues, so nothing is sent again.
    writeFileSync(config, 'exporter: { timeout: 20s, backoff: { initial: 50ms, max: 500ms } }\n');
    const bridge = start(['run', '--until-ended'], {
      BROWSER_API_URL: simUrl,
      BROWSER_API_KEY: 'sim-key',
      BRIDGE_SESSIONS: 'pg-1',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_ENDPOINT: grpcUrl,
      BRIDGE_STATE_DIR: join(dir, 'state'),
      BRIDGE_CONFIG: config,
      BRIDGE_LISTEN: 'off',
    });
    const count = (): number => received(recv.stdout(), 'pg-1').seqs.size;
    await eventually(() => count() > 50, 'the first events at the receiver');

    recv.child.kill('SIGSTOP');
    await sleep(2000);
    recv.child.kill('SIGCONT');
    const afterCollector = count();
    await eventually(() => count() > afterCollector + 50, 'events again after the collector continued');

    const ctl = async (path: string): Promise<{ lastSeq: number }> =>
      (await (await fetch(`${simUrl}/_sim/sessions/pg-1${path}`, { method: 'POST' })).json()) as { lastSeq: number };
    await ctl('/produce?rate=0');
    const { lastSeq } = await ctl('/end');
    await eventually(() => bridge.child.exitCode !== null, 'the bridge to exit once the session ended', 60_000);
    expect(bridge.child.exitCode, bridge.stderr()).toBe(0);
    const got = received(recv.stdout(), 'pg-1');
    const missing = Array.from({ length: lastSeq }, (_, i) => i + 1).filter((s) => !got.seqs.has(s));
    expect(missing.slice(0, 20), `${missing.length} missing of ${lastSeq}`).toEqual([]);
    expect(got.twice).toBe(0);
    expect(got.gaps).toBe(0);
  }, 90_000);
});
