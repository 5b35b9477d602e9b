// A TLS collector whose certificate is expired, or issued for another host, both protocols: check
// says which, and what fixes it (a CA setting helps only an unknown signer, so it is not what check
// advises here), and the exporter's error (the daemon's log line and /readyz lastError) says it in
// the same words. Real TLS servers on loopback with certificates made by openssl.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeCollector } from '../../../src/cli/check-probes.js';
import { buildConfig } from '../../../src/config/load-config.js';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { createTransport } from '../../../src/export/create-transport.js';
import { makeTestCerts, signExpiredLeaf, signLeaf, type TestCerts } from '../../helpers/test-certs.js';

let certs: TestCerts;
const servers: Server[] = [];
const receivers: Receiver[] = [];
let leaves: Record<'expired' | 'otherHost', { cert: string; key: string }>;
beforeAll(() => {
  certs = makeTestCerts();
  leaves = {
    expired: signExpiredLeaf(certs.dir, 'expired', '127.0.0.1', 'subjectAltName=IP:127.0.0.1'),
    otherHost: signLeaf(certs.dir, 'other', 'collector.example', 'subjectAltName=DNS:collector.example'),
  };
});
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  for (const r of receivers) await r.close();
  certs.remove();
});

async function httpsCollector(leaf: { cert: string; key: string }): Promise<string> {
  const server = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function grpcCollector(leaf: { cert: string; key: string }): Promise<string> {
  const r = await startReceiver({ grpc: { tls: leaf } });
  receivers.push(r);
  return r.grpcUrl!;
}

const exporter = (endpoint: string, protocol: string) =>
  buildConfig(
    {},
    {
      BROWSER_API_URL: 'http://127.0.0.1:9',
      BROWSER_API_KEY: 'k',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_EXPORTER_OTLP_CERTIFICATE: certs.paths.ca,
      OTEL_EXPORTER_OTLP_TIMEOUT: '5s',
    },
  ).exporter;

const CASES = [
  { leaf: 'expired', said: /certificate has expired: it must be renewed on the server/ },
  { leaf: 'otherHost', said: /issued for other names than the URL's host/ },
] as const;

describe('a TLS collector with a certificate no CA setting can fix', () => {
  for (const { leaf, said } of CASES)
    for (const protocol of ['http/protobuf', 'grpc'] as const) {
      it(`${leaf}, ${protocol}: check says so, and so does the exporter`, async () => {
        const url = protocol === 'grpc' ? await grpcCollector(leaves[leaf]) : await httpsCollector(leaves[leaf]);
        const cfg = exporter(url, protocol);
        const item = await probeCollector(cfg);
        expect(item.status).toBe('fail');
        expect(item.detail).toMatch(said);
        expect(item.detail).not.toMatch(/OTEL_EXPORTER_OTLP_CERTIFICATE/);

        const transport = await createTransport(cfg, { userAgent: 'test', signal: 'logs' });
        try {
          const outcome = await transport.send([Buffer.alloc(0)], 'application/x-protobuf');
          expect(outcome.kind).toBe('retryable');
          if (protocol !== 'grpc') expect(outcome).toMatchObject({ message: expect.stringMatching(said) as string });
          else expect(outcome).toMatchObject({ message: expect.stringMatching(/expired|altnames/) as string });
        } finally {
          await transport.close();
        }
      });
    }
});
