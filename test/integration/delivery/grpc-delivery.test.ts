// The whole bridge exporting over OTLP/gRPC to the receiver's real gRPC server: configured by the
// standard variables only, through the same spool and the same single retry layer as OTLP/HTTP
// (docs/design.md "Delivery semantics"): outage and recovery lose nothing, partial success is counted,
// TLS with a client certificate made in the test, and the insecure option where it applies.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAST, harness, sleep, until, type Harness } from '../../helpers/harness.js';
import { makeTestCerts, type TestCerts } from '../../helpers/test-certs.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});
let certs: TestCerts;
beforeAll(() => {
  certs = makeTestCerts();
});
afterAll(() => certs.remove());

const grpcEnv = (endpoint: string, extra: Record<string, string> = {}): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  ...extra,
});

describe('delivery over OTLP/gRPC', () => {
  it('delivers every event, with headers and gzip, through an outage (UNAVAILABLE, then nothing listening)', async () => {
    h = await harness({ bufferSize: 100_000 }, { grpc: {} });
    const ids = ['g1', 'g2'];
    for (const id of ids) h.sim.createSession(id).emit(200);
    h.receiver.behaviour.status = 503;
    const bridge = await h.startBridge(FAST, {
      BRIDGE_SESSIONS: ids.join(','),
      ...grpcEnv(h.receiver.grpcUrl!, {
        OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=acme',
        OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      }),
    });
    await until(() => bridge.delivery.exportFailing, 'exports to fail with UNAVAILABLE');
    expect(bridge.delivery.lastError).toMatch(/UNAVAILABLE/);
    await h.receiver.stop();
    for (const id of ids) h.sim.session(id)!.emit(200);
    await sleep(500);
    expect(bridge.spool.spooled.records).toBeGreaterThan(0);
    delete h.receiver.behaviour.status;
    await h.receiver.start();
    await until(() => h!.receiver.records.length >= 800, '800 records after the collector is back', 30_000);
    for (const id of ids) h.sim.session(id)!.end();
    await bridge.supervisor.untilAllEnded();
    for (const t of h.tally(ids)) expect(t).toMatchObject({ unique: 400, missing: 0, gapRecords: 0 });
    const accepted = h.receiver.requests.filter((r) => r.grpcCode === 0);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.every((r) => r.contentType === 'application/grpc' && r.headers['x-tenant'] === 'acme')).toBe(true);
    expect(bridge.delivery.exportFailing).toBe(false);
  }, 60_000);

  it('waits as long as RESOURCE_EXHAUSTED with RetryInfo says, then delivers', async () => {
    h = await harness({}, { grpc: {} });
    h.sim.createSession('ri').emit(20);
    Object.assign(h.receiver.behaviour, { status: 429, retryAfterSeconds: 1 });
    // One exporter worker: with three, a worker whose first attempt comes after the throttling ended
    // is accepted at once, which says nothing about how long the throttled one waited.
    const oneWorker = { ...FAST, exporter: { ...(FAST.exporter as object), concurrency: 1 } };
    const bridge = await h.startBridge(oneWorker, { BRIDGE_SESSIONS: 'ri', ...grpcEnv(h.receiver.grpcUrl!) });
    await until(() => h!.receiver.requests.length > 0, 'a throttled attempt');
    const first = h.receiver.requests[0]!.at;
    await sleep(300);
    delete h.receiver.behaviour.status;
    await until(() => h!.receiver.records.length >= 20, '20 records after the wait');
    // FAST's backoff is at most 300 ms: only the RetryInfo delay makes the bridge wait a second
    // (measured as the receiver saw the attempts, not by when this test polled; two exporter
    // workers may each have been throttled, so the wait is up to the first accepted request).
    const accepted = h.receiver.requests.find((r) => r.grpcCode === 0)!;
    expect(accepted.at - first).toBeGreaterThanOrEqual(950);
    // The receiver holds the records before the bridge has read its answer: wait for the bridge's side.
    await until(() => !bridge.delivery.exportFailing, 'the exporter no longer failing');
  });

  it('counts records rejected in a partial-success answer', async () => {
    h = await harness({}, { grpc: {} });
    const s = h.sim.createSession('gp');
    s.emit(100);
    h.receiver.behaviour.rejectRecords = (r) => Number(r.attributes['browser.telemetry.seq']) % 10 === 0;
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'gp', ...grpcEnv(h.receiver.grpcUrl!) });
    await until(() => h!.receiver.records.length >= 90, '90 accepted records');
    s.end();
    await bridge.supervisor.untilAllEnded();
    const metrics = await bridge.metrics.registry.metricText('bridge_events_rejected_total');
    expect(metrics).toMatch(/bridge_events_rejected_total\{reason="partial_success"\} 10/);
    expect(bridge.spool.spooled.records).toBe(0);
  });

  it('an endpoint without a scheme is plaintext only with OTEL_EXPORTER_OTLP_INSECURE=true', async () => {
    h = await harness({}, { grpc: {} });
    h.sim.createSession('in').emit(10);
    const hostPort = new URL(h.receiver.grpcUrl!).host;
    const tlsFirst = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'in', ...grpcEnv(hostPort) });
    expect(tlsFirst.config.exporter.url).toBe(`https://${hostPort}`);
    await until(() => tlsFirst.delivery.exportFailing, 'TLS against a plaintext port to fail');
    expect(h.receiver.records).toHaveLength(0);
    await tlsFirst.shutdown(0);
    const plain = await h.startBridge(FAST, {
      BRIDGE_SESSIONS: 'in',
      ...grpcEnv(hostPort, { OTEL_EXPORTER_OTLP_INSECURE: 'true' }),
    });
    await until(() => h!.receiver.records.length >= 10, '10 records in plaintext');
    expect(plain.config.exporter.url).toBe(`http://${hostPort}`);
  });
});

describe('OTLP/gRPC over TLS', () => {
  const tls = (): { cert: string; key: string; clientCa: string } => ({
    cert: certs.pem.serverCert,
    key: certs.pem.serverKey,
    clientCa: certs.pem.ca,
  });

  it('trusts the private CA and presents the client certificate from the standard variables', async () => {
    h = await harness({}, { grpc: { tls: tls() } });
    h.sim.createSession('t1').emit(50);
    const bridge = await h.startBridge(FAST, {
      BRIDGE_SESSIONS: 't1',
      ...grpcEnv(h.receiver.grpcUrl!, {
        OTEL_EXPORTER_OTLP_CERTIFICATE: certs.paths.ca,
        OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: certs.paths.clientCert,
        OTEL_EXPORTER_OTLP_CLIENT_KEY: certs.paths.clientKey,
      }),
    });
    await until(() => h!.receiver.records.length >= 50, '50 records over mutual TLS');
    expect(h.receiver.requests.every((r) => r.clientCertificate === 'bridge')).toBe(true);
    expect(bridge.delivery.exportFailing).toBe(false);
  });

  it('without the client certificate the handshake fails and the records stay spooled', async () => {
    h = await harness({}, { grpc: { tls: tls() } });
    h.sim.createSession('t2').emit(20);
    const bridge = await h.startBridge(FAST, {
      BRIDGE_SESSIONS: 't2',
      ...grpcEnv(h.receiver.grpcUrl!, { OTEL_EXPORTER_OTLP_CERTIFICATE: certs.paths.ca }),
    });
    await until(() => bridge.delivery.exportFailing, 'the export to fail');
    expect(h.receiver.records).toHaveLength(0);
    await until(() => bridge.spool.spooled.records === 20, 'all 20 records spooled');
  });
});
