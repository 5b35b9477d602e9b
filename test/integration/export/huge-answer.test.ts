// A collector (or whatever answers at its URL) that answers with a body of 100 MB: the exporter and
// `check` read the first 64 KiB of it and close the connection, so memory stays bounded whatever the
// peer sends. What is pinned is how much the peer got to write before the reader let go: a reader
// that takes the whole body lets it write all 100 MB; one that stops leaves the peer stuck behind
// the socket's buffers, a few MiB at most. Real sockets on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeCollector } from '../../../src/cli/check-probes.js';
import { buildConfig } from '../../../src/config/load-config.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import { logsTransportTo } from '../../helpers/logs-transport.js';
import { gzippedOtlpAnswer } from '../../helpers/otlp-answer-bomb.js';

const HUGE = 100 * 1024 * 1024;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  if (server) await new Promise((r) => server!.close(r));
  server = undefined;
});

/** Answers every POST with `status` and HUGE bytes of HTML; `written()` is what its sockets sent once they closed. */
async function flooding(status: number): Promise<{ url: string; written: () => Promise<number> }> {
  let done!: (bytes: number) => void;
  const closed = new Promise<number>((r) => (done = r));
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'text/html', 'content-length': String(HUGE) });
      const block = Buffer.alloc(1024 * 1024, 0x3c);
      let sent = 0;
      const write = (): void => {
        while (sent < HUGE) {
          sent += block.length;
          if (!res.write(block)) return void res.once('drain', write);
        }
        res.end();
      };
      write();
    });
    req.socket.once('close', () => done(req.socket.bytesWritten));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, written: () => closed };
}

const env = { BROWSER_API_URL: 'http://127.0.0.1:9', BROWSER_API_KEY: 'k' };
/** Far below the body, far above what loopback socket buffers hold. */
const BOUND = 16 * 1024 * 1024;

describe('a 100 MB answer', () => {
  it('check reads its beginning, fails the endpoint, and lets go of the rest', async () => {
    const peer = await flooding(200);
    const item = await probeCollector(buildConfig({}, { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: peer.url }).exporter);
    expect(item.status).toBe('fail');
    expect(item.detail).toMatch(/with text\/html that is not an OTLP response \(over 65536 bytes\)/);
    expect(await peer.written()).toBeLessThan(BOUND);
  });

  it.each([200, 500])('the exporter reads the beginning of a %i and lets go of the rest', async (status) => {
    const peer = await flooding(status);
    const facts: Fact[] = [];
    const t = logsTransportTo(peer.url, facts);
    const outcome = await t.send([Buffer.alloc(0)], 'application/x-protobuf');
    expect(outcome.kind).toBe(status === 200 ? 'success' : 'failure');
    if (status === 200) expect(facts).toMatchObject([{ f: 'export_answer_unrecognized', bytes: 65536 }]);
    expect(await peer.written()).toBeLessThan(BOUND);
    await t.close();
  });
});

describe('a small gzip that unpacks past 64 KiB', () => {
  it('the exporter takes it as the cut answer it is: success, reported as unrecognized at the cap', async () => {
    const packed = gzippedOtlpAnswer(100 * 1024);
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
        res.end(packed);
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const facts: Fact[] = [];
    const t = logsTransportTo(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, facts);
    expect(await t.send([Buffer.alloc(0)], 'application/x-protobuf')).toEqual({ kind: 'success', rejected: 0 });
    expect(facts).toMatchObject([{ f: 'export_answer_unrecognized', bytes: 65536 }]);
    await t.close();
  });
});
