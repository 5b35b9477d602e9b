// The collector behind TLS with a private CA and a client certificate (the standard
// OTEL_EXPORTER_OTLP_* variables), and both peers reached through an HTTP CONNECT proxy
// (HTTP_PROXY / NO_PROXY): real sockets on loopback, certificates from test/helpers/test-certs.ts.
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufLogsRequest } from '../../../src/devkit/receiver/decode.js';
import { probeCollector } from '../../../src/cli/check-probes.js';
import { buildConfig } from '../../../src/config/load-config.js';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';
import { clientCommonName, makeTestCerts, mutualTlsOptions, type TestCerts } from '../../helpers/test-certs.js';

let h: Harness | undefined;
const servers: Array<HttpServer | HttpsServer> = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY']) delete process.env[k];
  await h?.close();
  h = undefined;
  for (const s of sockets) s.destroy();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

let certs: TestCerts;
beforeAll(() => {
  certs = makeTestCerts();
  return () => certs.remove();
});

/** An OTLP/HTTP logs receiver on TLS that requires a client certificate signed by the test CA. */
async function tlsCollector(): Promise<{ url: string; records: () => number; clients: string[] }> {
  let records = 0;
  const clients: string[] = [];
  const server = createHttpsServer(mutualTlsOptions(certs), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      clients.push(String(clientCommonName(req)));
      records += decodeProtobufLogsRequest(Buffer.concat(chunks)).length;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, records: () => records, clients };
}

/** A CONNECT proxy that records which authorities it tunnelled to. */
async function connectProxy(): Promise<{ url: string; tunnels: string[] }> {
  const tunnels: string[] = [];
  const server = createHttpServer();
  server.on('connect', (req, client: Socket, head: Buffer) => {
    tunnels.push(String(req.url));
    const [host, port] = String(req.url).split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tunnels };
}

describe('TLS to the collector', () => {
  it('trusts a private CA and presents a client certificate from the standard variables', async () => {
    h = await harness();
    h.sim.createSession('t1').emit(50);
    const collector = await tlsCollector();
    const bridge = await h.startBridge(FAST, {
      BRIDGE_SESSIONS: 't1',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_CERTIFICATE: certs.paths.ca,
      OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: certs.paths.clientCert,
      OTEL_EXPORTER_OTLP_CLIENT_KEY: certs.paths.clientKey,
    });
    await until(() => collector.records() >= 50, '50 records over TLS');
    expect(collector.clients.every((cn) => cn === 'bridge')).toBe(true);
    expect(bridge.delivery.exportFailing).toBe(false);
  });

  it('without the CA the export fails on the certificate and the records stay spooled', async () => {
    h = await harness();
    h.sim.createSession('t2').emit(20);
    const collector = await tlsCollector();
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 't2', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
    await until(() => bridge.delivery.exportFailing, 'the export to fail');
    expect(bridge.delivery.lastError).toMatch(/CERT|certificate|SELF_SIGNED/i);
    expect(collector.records()).toBe(0);
    expect(bridge.spool.spooled.records).toBe(20);
  });
});

describe('check against a TLS collector behind a proxy', () => {
  const env = (collector: string): NodeJS.ProcessEnv => ({
    BROWSER_API_URL: 'http://127.0.0.1:9',
    BROWSER_API_KEY: 'k',
    BRIDGE_STATE_DIR: join(certs.dir, 'state'),
    OTEL_EXPORTER_OTLP_ENDPOINT: collector,
    OTEL_EXPORTER_OTLP_CERTIFICATE: certs.paths.ca,
    OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: certs.paths.clientCert,
    OTEL_EXPORTER_OTLP_CLIENT_KEY: certs.paths.clientKey,
  });

  it('the collector probe uses the configured CA, client certificate and proxy, as the exporter does', async () => {
    const collector = await tlsCollector();
    const proxy = await connectProxy();
    process.env.HTTPS_PROXY = proxy.url;
    const config = buildConfig({ sessions: ['s'] }, env(collector.url));
    const item = await probeCollector(config.exporter);
    expect(item, item.detail).toMatchObject({ status: 'ok' });
    expect(collector.clients).toEqual(['bridge']);
    expect(proxy.tunnels).toEqual([new URL(collector.url).host]);
  });

  it('without the CA the probe fails on the certificate, as the export would', async () => {
    const collector = await tlsCollector();
    const { OTEL_EXPORTER_OTLP_CERTIFICATE: _ca, ...withoutCa } = env(collector.url);
    const item = await probeCollector(buildConfig({ sessions: ['s'] }, withoutCa).exporter);
    expect(item.status).toBe('fail');
    expect(item.detail).toMatch(/CERT|certificate|SELF_SIGNED/i);
  });
});

describe('HTTP proxy', () => {
  it('reaches the service and the collector through HTTP_PROXY, and not for NO_PROXY hosts', async () => {
    h = await harness();
    h.sim.createSession('p1').emit(30);
    const proxy = await connectProxy();
    process.env.HTTP_PROXY = proxy.url;
    const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'p1' });
    await until(() => h!.receiver.records.length >= 30, '30 records through the proxy');
    const sim = new URL(h.sim.url).host;
    const receiver = new URL(h.receiver.url).host;
    expect(proxy.tunnels).toContain(sim);
    expect(proxy.tunnels).toContain(receiver);
    await bridge.shutdown(Date.now() + 1000);

    const before = proxy.tunnels.length;
    process.env.NO_PROXY = '127.0.0.1';
    h.sim.session('p1')!.emit(10);
    const again = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'p1' });
    await until(() => h!.receiver.records.length >= 40, '10 more records, directly');
    expect(proxy.tunnels.length).toBe(before);
    await again.shutdown(Date.now() + 1000);
  });
});
