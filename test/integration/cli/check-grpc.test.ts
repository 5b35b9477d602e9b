// `check` against an OTLP/gRPC collector (the receiver's gRPC side), as a child process: the probe
// goes through the daemon's own gRPC transport, so it passes exactly where `run` delivers, and a
// failure says what to change.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { makeTestCerts, type TestCerts } from '../../helpers/test-certs.js';
import { runCli } from './cli-process.js';

let sim: Simulator;
const receivers: Receiver[] = [];
let dir: string;
let certs: TestCerts;

beforeAll(() => {
  certs = makeTestCerts();
});
afterAll(() => certs.remove());
beforeEach(async () => {
  sim = await startSimulator();
  sim.createSession('s1');
  dir = mkdtempSync(join(tmpdir(), 'check-grpc-'));
});
afterEach(async () => {
  await sim.close();
  for (const r of receivers.splice(0)) await r.close();
  rmSync(dir, { recursive: true, force: true });
});

async function receiver(grpc: NonNullable<Parameters<typeof startReceiver>[0]>['grpc'] = {}): Promise<Receiver> {
  const r = await startReceiver({ grpc });
  receivers.push(r);
  return r;
}

const env = (endpoint: string, extra: Record<string, string> = {}): Record<string, string> => ({
  BROWSER_API_URL: sim.url,
  BROWSER_API_KEY: 'sim-key',
  BRIDGE_SESSIONS: 's1',
  BRIDGE_STATE_DIR: join(dir, 'state'),
  OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  ...extra,
});

const collectorLine = (stdout: string): string => stdout.split('\n').find((l) => / collector /.test(l)) ?? stdout;

describe('check with OTLP/gRPC', () => {
  it('✓ an empty export accepted, sent with the configured metadata and compression', async () => {
    const r = await receiver();
    const res = await runCli(
      ['check'],
      env(r.grpcUrl!, { OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=acme', OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' }),
    );
    expect(collectorLine(res.stdout)).toMatch(
      new RegExp(`^✓ collector\\s+${r.grpcUrl} accepted an empty export \\(OK, grpc, plaintext, gzip\\)$`),
    );
    expect(res.code).toBe(0);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]).toMatchObject({ contentType: 'application/grpc', grpcCode: 0, records: 0 });
    expect(r.requests[0]!.headers['x-tenant']).toBe('acme');
  });

  it('✓ over mutual TLS with the standard certificate variables', async () => {
    const r = await receiver({ tls: { cert: certs.pem.serverCert, key: certs.pem.serverKey, clientCa: certs.pem.ca } });
    const res = await runCli(
      ['check'],
      env(r.grpcUrl!, {
        OTEL_EXPORTER_OTLP_CERTIFICATE: certs.paths.ca,
        OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: certs.paths.clientCert,
        OTEL_EXPORTER_OTLP_CLIENT_KEY: certs.paths.clientKey,
      }),
    );
    expect(collectorLine(res.stdout)).toMatch(
      /^✓ collector\s+https:\/\/127\.0\.0\.1:\d+ accepted an empty export \(OK, grpc, TLS\)$/,
    );
    expect(r.requests[0]!.clientCertificate).toBe('bridge');
  });

  it.each<[string, (r: Receiver) => string, Record<string, string>, RegExp]>([
    [
      'an OTLP/HTTP port',
      (r) => r.url,
      {},
      /UNAVAILABLE: .*Protocol error; this port does not speak gRPC \(an OTLP\/HTTP port\?/,
    ],
    [
      'TLS against a plaintext port',
      (r) => r.grpcUrl!.replace('http:', 'https:'),
      {},
      /TLS: wrong version number; TLS against a plaintext port: write the endpoint with http:\/\//,
    ],
    [
      'nothing listening',
      () => 'http://127.0.0.1:9',
      {},
      /ECONNREFUSED 127\.0\.0\.1:9; connection refused: nothing listens there/,
    ],
  ])('✗ %s, with what to change', async (_name, endpoint, extra, expected) => {
    const r = await receiver();
    const res = await runCli(['check'], env(endpoint(r), extra));
    expect(res.code).toBe(1);
    expect(collectorLine(res.stdout)).toMatch(/^✗ collector/);
    expect(collectorLine(res.stdout)).toMatch(expected);
  });

  it('✗ UNAUTHENTICATED without headers does not blame headers that were never set', async () => {
    const r = await receiver();
    r.behaviour.status = 401;
    const bare = await runCli(['check'], env(r.grpcUrl!));
    expect(collectorLine(bare.stdout)).toMatch(
      /UNAUTHENTICATED: .*; the collector wants credentials and none are configured: set them with OTEL_EXPORTER_OTLP_HEADERS$/,
    );
    const withHeaders = await runCli(
      ['check'],
      env(r.grpcUrl!, { OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20x' }),
    );
    expect(collectorLine(withHeaders.stdout)).toMatch(
      /the collector refused the credentials in the configured headers \(OTEL_EXPORTER_OTLP_HEADERS\)$/,
    );
    expect(withHeaders.stdout).not.toContain('Bearer x');
  });
});
