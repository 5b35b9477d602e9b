// `check` with traces.enabled, as a child process: it also sends an empty span export to the traces
// endpoint, the daemon's way, and fails one without a traces pipeline (404) or that refuses the
// request (a wrong credential), which before passed `check` while the daemon kept every span
// waiting. The simulator and real OTLP receivers (one without a traces pipeline) on loopback.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { runCli } from './cli-process.js';

let sim: Simulator;
let withTraces: Receiver;
let without: Receiver;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator();
  sim.createSession('s1');
  withTraces = await startReceiver({ grpc: {} });
  without = await startReceiver({ grpc: {}, traces: false });
  dir = mkdtempSync(join(tmpdir(), 'check-traces-'));
});
afterAll(async () => {
  await sim.close();
  await withTraces.close();
  await without.close();
  rmSync(dir, { recursive: true, force: true });
});

const check = (receiver: Receiver, protocol: 'http/protobuf' | 'grpc', extra: Record<string, string> = {}) =>
  runCli(['check'], {
    BROWSER_API_URL: sim.url,
    BROWSER_API_KEY: 'sim-key',
    BRIDGE_SESSIONS: 's1',
    BRIDGE_STATE_DIR: join(dir, 'state'),
    BRIDGE_TRACES: 'true',
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_EXPORTER_OTLP_ENDPOINT: protocol === 'grpc' ? receiver.grpcUrl! : receiver.url,
    ...extra,
  });

const line = (stdout: string): string | undefined => stdout.split('\n').find((l) => l.slice(2).startsWith('traces'));

describe('check with traces enabled', () => {
  for (const protocol of ['http/protobuf', 'grpc'] as const) {
    it(`${protocol}: a collector with a traces pipeline passes`, async () => {
      const r = await check(withTraces, protocol);
      expect(line(r.stdout)).toMatch(/^✓ traces .*accepted an empty span export/);
      expect(r.code).toBe(0);
    });

    it(`${protocol}: one without a traces pipeline fails, naming what the daemon would do`, async () => {
      const r = await check(without, protocol);
      expect(line(r.stdout)).toMatch(/^✗ traces .*has no traces pipeline .*records are not affected/);
      expect(r.code).toBe(1);
    });
  }

  it('without a traces pipeline, names the configured traces.unsupported_retry, not a fixed 5 minutes', async () => {
    const config = join(dir, 'retry.yaml');
    writeFileSync(config, 'traces:\n  unsupported_retry: 30s\n');
    const r = await check(without, 'http/protobuf', { BRIDGE_CONFIG: config });
    expect(line(r.stdout)).toMatch(/offered again every 30\.0 s \(traces\.unsupported_retry\);/);
    expect(r.code).toBe(1);
  });

  it('a traces endpoint at a wrong URL (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) fails', async () => {
    const r = await check(withTraces, 'http/protobuf', {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${withTraces.url}/v1/nowhere`,
    });
    expect(line(r.stdout)).toMatch(/^✗ traces /);
    expect(r.code).toBe(1);
  });
});
