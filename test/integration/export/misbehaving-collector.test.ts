// A collector that misbehaves on the wire: a loopback front written here answers the first
// requests badly (a 200 head and then a reset, no answer at all, a redirect, an HTTP/1.0
// close-delimited reply, a gzip-encoded partial success, an absurd Retry-After), then forwards
// every later request to the real receiver. The bridge runs in this process on real sockets; what
// each case pins is what arrives at the receiver in the end: every event, none lost.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { probeCollector } from '../../../src/cli/check-probes.js';
import { buildConfig } from '../../../src/config/load-config.js';
import type { Bridge } from '../../../src/daemon/bridge.js';
import { FAST, harness, sleep, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
let front: Server | undefined;
const trickles: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const t of trickles.splice(0)) clearInterval(t);
  await h?.close();
  h = undefined;
  front?.closeAllConnections();
  await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
  front = undefined;
});

/** The receiver's answer to a request the front handed on. */
interface Forwarded {
  status: number;
  type: string;
  body: Buffer;
}

/**
 * What the front does with request `n` (0-based). `forward` hands the request to the receiver as it
 * came and resolves with its answer, which `pass` writes back as it is.
 */
type Misbehaviour = (req: IncomingMessage, res: ServerResponse, n: number, tools: FrontTools) => void;

interface FrontTools {
  forward: () => Promise<Forwarded>;
  pass: () => void;
}

interface Front {
  url: string;
}

async function startFront(receiverUrl: string, misbehave: Misbehaviour): Promise<Front> {
  let n = 0;
  front = createServer((req, res) => {
    const forward = async (): Promise<Forwarded> => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers: Record<string, string> = {};
      for (const k of ['content-type', 'content-encoding']) if (req.headers[k]) headers[k] = String(req.headers[k]);
      const answer = await fetch(`${receiverUrl}${req.url}`, { method: 'POST', headers, body: Buffer.concat(chunks) });
      return {
        status: answer.status,
        type: answer.headers.get('content-type') ?? '',
        body: Buffer.from(await answer.arrayBuffer()),
      };
    };
    const pass = (): void =>
      void forward().then(({ status, type, body }) => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      });
    misbehave(req, res, n++, { forward, pass });
  });
  await new Promise<void>((r) => front!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(front.address() as AddressInfo).port}` };
}

const EVENTS = 300;

/** Streams EVENTS events of one session through the front and waits until the receiver has them all. */
async function deliverThrough(collector: string, raw: Record<string, unknown> = FAST): Promise<Bridge> {
  const s = h!.sim.createSession('mis');
  s.emit(EVENTS);
  const bridge = await h!.startBridge(raw, { BRIDGE_SESSIONS: 'mis', OTEL_EXPORTER_OTLP_ENDPOINT: collector });
  await until(
    () => new Set(h!.receiver.records.map((r) => r.attributes['browser.telemetry.seq'])).size >= EVENTS,
    'every event at the receiver',
    30_000,
  );
  return bridge;
}

const seqs = (): number[] =>
  [...new Set(h!.receiver.records.map((r) => Number(r.attributes['browser.telemetry.seq'])))].sort((a, b) => a - b);
const allSeqs = Array.from({ length: EVENTS }, (_, i) => i + 1);

describe('a collector that misbehaves on the wire', () => {
  it('a 200 head sent before the request was read, then a reset: the records are sent again, none lost', async () => {
    h = await harness();
    const f = await startFront(h.receiver.url, (req, _res, n, { pass }) => {
      if (n >= 3) return pass();
      // Answers before reading a byte of the body, then drops the connection: nothing was stored.
      req.socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 10\r\n\r\n');
      setImmediate(() => req.socket.resetAndDestroy());
    });
    await deliverThrough(f.url);
    expect(seqs()).toEqual(allSeqs);
  });

  it('a 200 whose body trickles and never ends is an answer: taken at the export timeout, not sent again', async () => {
    h = await harness();
    const f = await startFront(h.receiver.url, (_req, res, n, { forward, pass }) => {
      if (n >= 3) return pass();
      void forward().then(() => {
        res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': '1000' });
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('\0')), 100);
        trickles.push(t);
      });
    });
    await deliverThrough(f.url);
    expect(seqs()).toEqual(allSeqs);
    // The three slow answers were successes: none of their records went out twice.
    expect(h.receiver.records.length).toBe(EVENTS);
  });

  it('a collector that accepts the connection and never answers: the export timeout ends each try, none lost', async () => {
    h = await harness();
    const f = await startFront(h.receiver.url, (_req, _res, n, { pass }) => {
      if (n >= 3) pass();
      // else: silence; the exporter's timeout (FAST: 2 s) must end the request.
    });
    const bridge = await deliverThrough(f.url);
    expect(seqs()).toEqual(allSeqs);
    expect(bridge.delivery.lastError).toBeUndefined();
  });

  it.each([301, 307, 308])(
    'a %i redirect is not followed: a failure that names where it points and keeps the records until the collector answers',
    async (code) => {
      h = await harness();
      let redirecting = true;
      const f = await startFront(h.receiver.url, (req, res, _n, { pass }) => {
        if (!redirecting) return pass();
        req.resume();
        res.writeHead(code, { location: `${h!.receiver.url}/v1/logs?token=secret` });
        res.end();
      });
      const s = h.sim.createSession('mis');
      s.emit(EVENTS);
      const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'mis', OTEL_EXPORTER_OTLP_ENDPOINT: f.url });
      await until(() => /redirects to/.test(bridge.delivery.lastError ?? ''), 'the redirect reported');
      // Where it points, with a secret-named parameter masked as every URL the bridge logs.
      expect(bridge.delivery.lastError).toMatch(
        new RegExp(`^HTTP ${code}: redirects to ${h.receiver.url}/v1/logs\\?token=\\S+, not followed$`),
      );
      expect(bridge.delivery.lastError).not.toContain('secret');
      redirecting = false;
      await until(() => seqs().length >= EVENTS, 'every event at the receiver', 30_000);
      expect(seqs()).toEqual(allSeqs);
    },
  );

  it('an HTTP/1.0 answer delimited by the close of the connection is an answer', async () => {
    h = await harness();
    let closeDelimited = 0;
    const f = await startFront(h.receiver.url, (req, _res, n, { forward, pass }) => {
      if (n >= 3) return pass();
      closeDelimited++;
      // No length, no chunking: the body ends where the connection does (RFC 9112 §6.3, rule 8).
      void forward().then(({ type, body }) =>
        req.socket.end(Buffer.concat([Buffer.from(`HTTP/1.0 200 OK\r\ncontent-type: ${type}\r\n\r\n`), body])),
      );
    });
    await deliverThrough(f.url);
    expect(closeDelimited).toBe(3);
    // Each close-delimited answer was a success: no record of theirs was sent twice.
    expect(h.receiver.records.length).toBe(EVENTS);
  });

  it('a gzip-encoded partial success is read: its rejected count is counted', async () => {
    h = await harness();
    const f = await startFront(h.receiver.url, (_req, res, n, { forward, pass }) => {
      if (n >= 1) return pass();
      void forward().then(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(JSON.stringify({ partialSuccess: { rejectedLogRecords: '7', errorMessage: 'seven bad' } })));
      });
    });
    const bridge = await deliverThrough(f.url);
    expect(bridge.metrics.eventsRejected.get({ reason: 'partial_success' })).toBe(7);
  });

  it.each(['-5', '1000000'])(
    'a partial success rejecting %s records: counted within what was sent, delivery goes on',
    async (rejected) => {
      h = await harness();
      let sent = 0;
      const f = await startFront(h.receiver.url, (_req, res, n, { forward, pass }) => {
        if (n >= 1) return pass();
        void forward().then(() => {
          sent++;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ partialSuccess: { rejectedLogRecords: rejected, errorMessage: 'odd count' } }));
        });
      });
      const bridge = await deliverThrough(f.url);
      expect(sent).toBe(1);
      const counted = (): number => bridge.metrics.eventsRejected.get({ reason: 'partial_success' }) ?? 0;
      // The receiver has every record a moment before the bridge has read the last answer.
      await until(() => bridge.delivery.deliveredTotal + counted() >= EVENTS, 'the last answer read');
      // Each record of the one odd answer is either delivered or rejected, never both, never more.
      expect(counted()).toBeLessThanOrEqual(200); // FAST: batch_max_records
      expect(bridge.delivery.deliveredTotal + counted()).toBe(EVENTS);
    },
  );

  it.each(['99999999999', 'Fri, 31 Dec 9999 23:59:59 GMT'])(
    '503 with Retry-After %s: the bridge waits instead of hammering the collector',
    async (retryAfter) => {
      h = await harness();
      let answered = 0;
      const f = await startFront(h.receiver.url, (req, res) => {
        req.resume();
        req.once('end', () => {
          answered++;
          res.writeHead(503, { 'retry-after': retryAfter, 'content-type': 'text/plain' });
          res.end('come back later');
        });
      });
      const s = h.sim.createSession('ra');
      s.emit(50);
      const bridge = await h.startBridge(FAST, { BRIDGE_SESSIONS: 'ra', OTEL_EXPORTER_OTLP_ENDPOINT: f.url });
      await until(() => bridge.delivery.exportFailing, 'a refused export');
      const first = answered;
      // A measured window, not a deadline: a slow machine only sends fewer. A wait past setTimeout's
      // limit used to become 1 ms in Node: thousands of requests in this second.
      await sleep(1000);
      expect(answered - first).toBeLessThanOrEqual(3);
      expect(bridge.delivery.lastError).toMatch(/^HTTP 503.*come back later/);
    },
  );
});

describe('check against the same collectors', () => {
  const probe = async (misbehave: Misbehaviour) => {
    h = await harness();
    const f = await startFront(h.receiver.url, misbehave);
    const env = { BROWSER_API_URL: 'http://127.0.0.1:9', BROWSER_API_KEY: 'k', OTEL_EXPORTER_OTLP_ENDPOINT: f.url };
    return probeCollector(buildConfig({ exporter: { timeout: '2s' } }, env).exporter);
  };

  it('a redirect: ✗ naming where it points', async () => {
    const item = await probe((req, res) => {
      req.resume();
      res.writeHead(307, { location: 'https://collector.example/v1/logs' });
      res.end();
    });
    expect(item.status).toBe('fail');
    expect(item.detail).toMatch(
      /answered 307 Temporary Redirect .*redirects to https:\/\/collector\.example\/v1\/logs, and the bridge follows no redirect/,
    );
  });

  it('a 200 head and then a reset: ✗, as the daemon would send everything again', async () => {
    const item = await probe((req) => {
      req.socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 10\r\n\r\n');
      setImmediate(() => req.socket.resetAndDestroy());
    });
    expect(item.status).toBe('fail');
    expect(item.detail).toMatch(/answered 200 .*and then cut its answer/);
  });

  it('a gzip-encoded OTLP answer: ✓, as the daemon reads it', async () => {
    const item = await probe((_req, res, _n, { forward }) => {
      void forward().then(({ type, body }) => {
        res.writeHead(200, { 'content-type': type, 'content-encoding': 'gzip' });
        res.end(gzipSync(body));
      });
    });
    expect(item.status, item.detail).toBe('ok');
  });
});
