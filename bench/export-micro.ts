// Micro-benchmark of the main thread's export path: OTLP/HTTP requests built from sealed segments
// and sent to a collector that discards them, with the body written as its chunks (the framing,
// then the segments themselves) against the same body joined into one buffer first (what every
// request cost before). Not a test; prints CPU µs per record of this process for both, the median
// of --reps rounds, alternating.
//
//   npx tsx bench/export-micro.ts [--requests 200] [--reps 5] [--gzip]
//
// The collector runs in a child process, so the CPU counted is the sender's alone (this process has
// no other work). Records are the heavy mix's sizes (300 B to 4 KB, a 24 KB one in 30), sealed two
// or three to a segment as 1,000 sessions at 20 events/s make them, 1,000 records a request.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { createOtlpTransport } from '../src/export/otlp-transport.js';
import { createRequestBuilder, joinBody, type RequestBody } from '../src/wire/otlp-request.js';
import { createRng } from '../src/devkit/simulator/events/rng.js';

const { values: args } = parseArgs({
  options: { requests: { type: 'string' }, reps: { type: 'string' }, gzip: { type: 'boolean' } },
  strict: true,
});
const requests = Number(args.requests ?? '200');
const reps = Number(args.reps ?? '5');
const RECORDS_PER_REQUEST = 1000;

const SINK = `
const http = require('node:http');
const s = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end()); });
s.listen(0, '127.0.0.1', () => console.log(s.address().port));
`;
const sink = spawn(process.execPath, ['-e', SINK], { stdio: ['ignore', 'pipe', 'inherit'] });
// However this process ends, the collector goes with it.
process.on('exit', () => sink.kill());
const [line] = (await once(sink.stdout, 'data')) as [Buffer];
const url = `http://127.0.0.1:${line.toString().trim()}/v1/logs`;

const rng = createRng(5);
const recordBytes = (): number => (rng.next() < 1 / 30 ? 24_000 : 300 + Math.floor(rng.next() * 3700));
/** One request's payloads: segments of 1–3 records (a record's framing is irrelevant to the copy). */
function payloads(): Buffer[] {
  const out: Buffer[] = [];
  for (let n = 0; n < RECORDS_PER_REQUEST;) {
    const k = Math.min(1 + Math.floor(rng.next() * 3), RECORDS_PER_REQUEST - n);
    let bytes = 0;
    for (let i = 0; i < k; i++) bytes += recordBytes();
    out.push(Buffer.alloc(bytes, n & 0xff));
    n += k;
  }
  return out;
}
const sets = Array.from({ length: 20 }, payloads);
const builder = createRequestBuilder('http/protobuf', {
  resource: { 'service.name': 'bench' },
  scope: { name: 'bench', version: '1' },
});
const transport = createOtlpTransport({
  url,
  headers: {},
  compression: args.gzip ? 'gzip' : 'none',
  timeoutMs: 30_000,
  connections: 2,
  userAgent: 'bench',
});

type Way = 'chunks' | 'joined';
const shape: Record<Way, (b: RequestBody) => RequestBody> = {
  chunks: (b) => b,
  joined: (b) => [joinBody(b)],
};

/** CPU µs per record of `requests` requests, two in flight at a time (delivery's default). */
async function round(way: Way): Promise<number> {
  const cpu0 = process.cpuUsage();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < requests) {
      const body = shape[way](builder.build(sets[next++ % sets.length]!));
      const outcome = await transport.send(body, builder.contentType);
      if (outcome.kind !== 'success') throw new Error(outcome.message);
    }
  };
  await Promise.all([lane(), lane()]);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / (requests * RECORDS_PER_REQUEST);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
await round('chunks');
await round('joined');
const times: Record<Way, number[]> = { chunks: [], joined: [] };
for (let r = 0; r < reps; r++) for (const way of ['joined', 'chunks'] as const) times[way].push(await round(way));
await transport.close();
sink.kill();
for (const way of ['joined', 'chunks'] as const)
  console.log(
    `${way.padEnd(7)} ${median(times[way]).toFixed(2)} µs CPU per record (${times[way].map((t) => t.toFixed(2)).join(', ')})`,
  );
console.log(`load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);
