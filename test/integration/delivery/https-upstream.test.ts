// The session service over https:// (a private CA, BROWSER_API_CA_FILE): the streams are read on the
// bridge's own TLS sockets (upstream/stream-request.ts), the archive through node:https. A TLS
// terminator on loopback stands in front of the simulator; every event arrives exactly once,
// through a cut in the middle of the stream, on this thread and on an ingest worker.
import { connect, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAST, harness, type Harness } from '../../helpers/harness.js';
import { makeTestCerts, type TestCerts } from '../../helpers/test-certs.js';

let certs: TestCerts;
let h: Harness | undefined;
let terminator: Server | undefined;
const sockets = new Set<Socket>();

beforeAll(() => {
  certs = makeTestCerts();
});
afterAll(() => certs.remove());
afterEach(async () => {
  await h?.close();
  for (const s of sockets) s.destroy();
  sockets.clear();
  await new Promise<void>((r) => (terminator ? terminator.close(() => r()) : r()));
  terminator = undefined;
});

/** TLS on a port of its own, relayed to the simulator's plain port; resolves with its https:// URL. */
async function tlsInFront(plainUrl: string): Promise<string> {
  const target = new URL(plainUrl);
  terminator = createTlsServer({ key: certs.pem.serverKey, cert: certs.pem.serverCert }, (tls) => {
    const plain = connect(Number(target.port), target.hostname);
    for (const s of [tls, plain]) {
      sockets.add(s);
      s.on('error', () => {
        tls.destroy();
        plain.destroy();
      });
      s.once('close', () => sockets.delete(s));
    }
    // A reset (the simulator cutting a stream) reaches the bridge as one.
    plain.once('close', () => tls.destroy());
    tls.once('close', () => plain.destroy());
    tls.pipe(plain).pipe(tls);
  });
  await new Promise<void>((r) => terminator!.listen(0, '127.0.0.1', () => r()));
  return `https://127.0.0.1:${(terminator.address() as AddressInfo).port}`;
}

describe('a service over https', () => {
  for (const workers of ['0', '1']) {
    it(`every event once, through a cut (ingest workers: ${workers})`, async () => {
      h = await harness();
      const ids = ['t1', 't2'];
      for (const id of ids) h.sim.createSession(id).emit(150);
      const url = await tlsInFront(h.sim.url);
      const bridge = await h.startBridge(FAST, {
        BROWSER_API_URL: url,
        BROWSER_API_CA_FILE: certs.paths.ca,
        BRIDGE_SESSIONS: ids.join(','),
        BRIDGE_WORKERS: workers,
      });
      await h.receiver.waitFor((r) => r.length >= 300, 20_000);
      h.sim.faults.cutAfterFrames = 40;
      for (const id of ids) h.sim.session(id)!.emit(100);
      await h.receiver.waitFor((r) => r.length >= 500, 20_000);
      delete h.sim.faults.cutAfterFrames;
      for (const id of ids) h.sim.session(id)!.end();
      await bridge.supervisor.untilAllEnded();
      for (const t of h.tally(ids)) expect(t).toMatchObject({ unique: 250, duplicates: 0, missing: 0, gapRecords: 0 });
    }, 60_000);
  }
});
