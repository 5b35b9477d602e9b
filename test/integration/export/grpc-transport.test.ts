// The OTLP/gRPC transport against the receiver's real gRPC server on loopback: what each collector
// answer becomes (results as values), metadata, gzip, deadlines, plaintext / TLS / mutual TLS.
import { readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGrpcTransport, type GrpcTransportOptions } from '../../../src/export/grpc-transport.js';
import type { OtlpTransport } from '../../../src/export/otlp-transport.js';
import { startReceiver, type Receiver, type ReceiverOptions } from '../../../src/devkit/receiver/server.js';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import { createRequestBuilder, type RequestBody } from '../../../src/wire/otlp-request.js';
import { makeTestCerts, type TestCerts } from '../../helpers/test-certs.js';

const encode = createRecordEncoder();
const builder = createRequestBuilder('grpc', {
  resource: { 'service.name': 'grpc-test' },
  scope: { name: 'test', version: '1' },
});
const record = (seq: number): Buffer =>
  encode({
    tsMicros: 1_700_000_000_000_000 + seq,
    observedMicros: 1_700_000_000_000_000 + seq,
    eventName: 'browser.console_log',
    severityNumber: 9,
    severityText: 'INFO',
    body: { text: `line ${seq}` },
    attributes: { 'browser.session.id': 's1', 'browser.telemetry.seq': seq },
  });
const request = (n: number): RequestBody => builder.build(Array.from({ length: n }, (_, i) => record(i + 1)));

/** A TCP relay to 127.0.0.1:port that counts the bytes clients send through it. */
async function byteCountingRelay(
  port: number,
): Promise<{ url: string; bytesIn: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    client.on('data', (d: Buffer) => (bytes += d.length));
    client.pipe(upstream).pipe(client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytesIn: () => bytes,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((res) => server.close(() => res()));
    },
  };
}

let certs: TestCerts;
beforeAll(() => {
  certs = makeTestCerts();
});
afterAll(() => certs.remove());

const open: Array<Receiver | OtlpTransport> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function receiver(grpc: NonNullable<ReceiverOptions['grpc']> = {}): Promise<Receiver> {
  const r = await startReceiver({ grpc });
  open.push(r);
  return r;
}

function transport(o: Partial<GrpcTransportOptions> & { url: string }): OtlpTransport {
  const t = createGrpcTransport({
    headers: {},
    compression: 'none',
    timeoutMs: 2000,
    userAgent: 'bridge-test/1',
    ...o,
  });
  open.push(t);
  return t;
}

describe('OTLP/gRPC transport, plaintext', () => {
  it('delivers the request bytes as they are, with headers as metadata, gzip and the user agent', async () => {
    const r = await receiver();
    const t = transport({ url: r.grpcUrl!, headers: { 'X-Tenant': 'acme' }, compression: 'gzip' });
    expect(await t.send(request(3), 'application/x-protobuf')).toEqual({ kind: 'success', rejected: 0 });
    expect(r.records.map((x) => x.attributes['browser.telemetry.seq'])).toEqual([1, 2, 3]);
    expect(r.records[0]!.resource).toEqual({ 'service.name': 'grpc-test' });
    const [req] = r.requests;
    expect(req).toMatchObject({ contentType: 'application/grpc', grpcCode: 0, records: 3 });
    expect(req!.headers['x-tenant']).toBe('acme');
    expect(req!.headers['user-agent']).toMatch(/^bridge-test\/1 /);
  });

  it('gzip compresses the message on the wire (bytes counted by a TCP relay in front of the server)', async () => {
    const r = await receiver();
    const wire = async (compression: 'gzip' | 'none'): Promise<number> => {
      const relay = await byteCountingRelay(Number(new URL(r.grpcUrl!).port));
      try {
        expect(await transport({ url: relay.url, compression }).send(request(200), '')).toMatchObject({
          kind: 'success',
        });
        return relay.bytesIn();
      } finally {
        await relay.close();
      }
    };
    const plain = await wire('none');
    const gzipped = await wire('gzip');
    expect(plain).toBeGreaterThan(request(200).length);
    expect(gzipped).toBeLessThan(plain / 3);
    expect(r.records).toHaveLength(400);
  });

  it('reports a partial success with its count and message', async () => {
    const r = await receiver();
    r.behaviour.rejectRecords = (x) => x.attributes['browser.telemetry.seq'] === 2;
    const outcome = await transport({ url: r.grpcUrl! }).send(request(3), '');
    expect(outcome).toEqual({
      kind: 'success',
      rejected: 1,
      message: "1 log record(s) rejected by the receiver's behaviour",
    });
  });

  it.each<[string, { status: number; retryAfterSeconds?: number }, object]>([
    ['UNAVAILABLE is retryable', { status: 503 }, { kind: 'retryable', grpcCode: 14 }],
    [
      'UNAVAILABLE with RetryInfo carries its delay',
      { status: 503, retryAfterSeconds: 2 },
      { kind: 'retryable', grpcCode: 14, retryAfterMs: 2000 },
    ],
    [
      'RESOURCE_EXHAUSTED with RetryInfo is retryable',
      { status: 429, retryAfterSeconds: 1 },
      { kind: 'retryable', grpcCode: 8, retryAfterMs: 1000 },
    ],
    ['RESOURCE_EXHAUSTED without RetryInfo is permanent', { status: 429 }, { kind: 'failure', grpcCode: 8 }],
    ['UNAUTHENTICATED is permanent', { status: 401 }, { kind: 'failure', grpcCode: 16 }],
    ['DEADLINE_EXCEEDED from the server is retryable', { status: 504 }, { kind: 'retryable', grpcCode: 4 }],
  ])('%s', async (_name, behaviour, expected) => {
    const r = await receiver();
    Object.assign(r.behaviour, behaviour);
    const outcome = await transport({ url: r.grpcUrl! }).send(request(1), '');
    expect(outcome).toMatchObject(expected);
    if (!('retryAfterSeconds' in behaviour)) expect(outcome).not.toHaveProperty('retryAfterMs');
    expect(r.records).toHaveLength(0);
  });

  it('an undecodable request is INVALID_ARGUMENT, refused for its content (delivery splits it)', async () => {
    const r = await receiver();
    const outcome = await transport({ url: r.grpcUrl! }).send([Buffer.from([0x0a, 0xff, 0xff])], '');
    expect(outcome).toMatchObject({ kind: 'failure', grpcCode: 3, refused: 'invalid' });
  });

  it('a collector that does not answer in time is a retryable DEADLINE_EXCEEDED', async () => {
    const r = await receiver();
    r.behaviour.delayMs = 2000;
    const started = Date.now();
    const outcome = await transport({ url: r.grpcUrl!, timeoutMs: 300 }).send(request(1), '');
    expect(outcome).toMatchObject({ kind: 'retryable', grpcCode: 4 });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('nothing listening is a retryable UNAVAILABLE naming the refusal, at once', async () => {
    const r = await receiver();
    const url = r.grpcUrl!;
    await r.stop();
    const outcome = await transport({ url }).send(request(1), '');
    expect(outcome).toMatchObject({ kind: 'retryable', grpcCode: 14 });
    expect(outcome.kind !== 'success' && outcome.message).toMatch(/ECONNREFUSED/);
  });

  it('close() ends a call in flight instead of waiting for the collector', async () => {
    const r = await receiver();
    r.behaviour.delayMs = 5000;
    const t = createGrpcTransport({
      url: r.grpcUrl!,
      headers: {},
      compression: 'none',
      timeoutMs: 10_000,
      userAgent: 'x',
    });
    const pending = t.send(request(1), '');
    await new Promise((res) => setTimeout(res, 100));
    const started = Date.now();
    await t.close();
    expect(await pending).toMatchObject({ kind: 'retryable', grpcCode: 1 });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('OTLP/gRPC transport, TLS', () => {
  const tls = (): { cert: string; key: string; clientCa: string } => ({
    cert: certs.pem.serverCert,
    key: certs.pem.serverKey,
    clientCa: certs.pem.ca,
  });

  it('presents the client certificate to a server that requires one (mutual TLS)', async () => {
    const r = await receiver({ tls: tls() });
    expect(r.grpcUrl).toMatch(/^https:\/\//);
    const t = transport({
      url: r.grpcUrl!,
      tls: {
        ca: certs.pem.ca,
        cert: readFileSync(certs.paths.clientCert, 'utf8'),
        key: readFileSync(certs.paths.clientKey, 'utf8'),
      },
    });
    expect(await t.send(request(2), '')).toEqual({ kind: 'success', rejected: 0 });
    expect(r.requests[0]!.clientCertificate).toBe('bridge');
  });

  it('without a client certificate the handshake fails, retryably, and nothing is accepted', async () => {
    const r = await receiver({ tls: tls() });
    const outcome = await transport({ url: r.grpcUrl!, tls: { ca: certs.pem.ca } }).send(request(1), '');
    expect(outcome).toMatchObject({ kind: 'retryable', grpcCode: 14 });
    expect(r.records).toHaveLength(0);
  });

  it('without the private CA the server certificate is not trusted', async () => {
    const r = await receiver({ tls: { cert: certs.pem.serverCert, key: certs.pem.serverKey } });
    const outcome = await transport({ url: r.grpcUrl! }).send(request(1), '');
    expect(outcome).toMatchObject({ kind: 'retryable', grpcCode: 14 });
    expect(outcome.kind !== 'success' && outcome.message).toMatch(/certificate|CERT/i);
  });
});
