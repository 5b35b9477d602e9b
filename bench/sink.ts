// The benchmark's OTLP/HTTP sink, run as a child process (bench/peers.ts): accepts POSTs of logs
// export requests (protobuf or JSON, gzip or not), counts and times their records (sink-tally.ts)
// and answers 200 with an empty response. Traces export requests (BRIDGE_TRACES=true) are accepted
// and counted by requests and bytes only, never taken for logs. Prints {"url": ...} on stdout once
// listening. BENCH_TRACES_DELAY_MS=N (in the bench's environment) answers each traces request N ms
// late: a slow traces endpoint, while logs are answered at once.
//
//   POST /_sink/fail?status=503   refuse every export request with that status from now on
//   POST /_sink/ok                accept again
//   POST /_sink/steady            time the events produced from now on apart too (steadyLatency)
//   GET  /_sink/stats             SinkStats as JSON
//
// The full receiver (src/devkit/receiver) decodes everything with protobufjs and would become the
// bottleneck at 20k records/s; correctness of what is sent is the integration tests' job.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { SinkTally } from './sink-tally.js';

const tally = new SinkTally();
const traces = { requests: 0, bytes: 0 };
const tracesDelayMs = Math.max(0, Number(process.env['BENCH_TRACES_DELAY_MS'] ?? 0) || 0);

function control(req: IncomingMessage, res: ServerResponse, url: URL): void {
  const reply = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  if (req.method === 'GET' && url.pathname === '/_sink/stats') return reply(200, { ...tally.stats(), traces });
  if (req.method === 'POST' && url.pathname === '/_sink/fail') {
    const status = Number(url.searchParams.get('status') ?? '503');
    if (!Number.isInteger(status) || status < 400 || status > 599)
      return reply(400, { error: 'status must be an HTTP error status (400..599)' });
    tally.failStatus = status;
    return reply(200, { failing: status });
  }
  if (req.method === 'POST' && url.pathname === '/_sink/steady') {
    tally.markSteady();
    return reply(200, { steady: true });
  }
  if (req.method === 'POST' && url.pathname === '/_sink/ok') {
    tally.failStatus = undefined;
    return reply(200, { failing: null });
  }
  reply(404, { error: `no sink route ${req.method} ${url.pathname}` });
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://sink');
  if (url.pathname.startsWith('/_sink/')) return req.resume().on('end', () => control(req, res, url));
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const contentType = req.headers['content-type'] ?? 'application/x-protobuf';
    if (url.pathname.endsWith('/v1/traces')) {
      traces.requests++;
      traces.bytes += body.length;
      const answer = (): void => {
        res.writeHead(200, { 'content-type': contentType });
        res.end(/json/i.test(contentType) ? '{}' : undefined);
      };
      if (tracesDelayMs > 0) setTimeout(answer, tracesDelayMs);
      else answer();
      return;
    }
    if (tally.failStatus !== undefined) {
      tally.refuse(body.length);
      res.writeHead(tally.failStatus, { 'content-type': contentType });
      return res.end();
    }
    try {
      tally.accept(body, contentType, req.headers['content-encoding'] ?? '');
    } catch (err) {
      process.stderr.write(`sink: undecodable request: ${err instanceof Error ? err.message : String(err)}\n`);
      res.writeHead(400, { 'content-type': 'text/plain' });
      return res.end('undecodable OTLP logs request');
    }
    // An empty ExportLogsServiceResponse: no partial success.
    res.writeHead(200, { 'content-type': contentType });
    res.end(/json/i.test(contentType) ? '{}' : undefined);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  if (a && typeof a === 'object') process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${a.port}` }) + '\n');
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
