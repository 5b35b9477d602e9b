// Micro-benchmark of an ingest worker's read side: many live telemetry streams on the bridge's own
// socket (src/upstream/stream-request.ts), each read by src/stream/connection-reader.ts into a
// SequencedStream (the frames are parsed), and a sink that only counts: no mapping, no encoding.
// What it times is what a worker pays per read, per hold and per turn of the event loop, beside the
// parse of each event. Not a test; prints CPU µs per event of this process (user and system apart).
//
//   npx tsx bench/read-micro.ts [--sessions 1000] [--rate 20] [--per-write 1] [--seconds 10]
//                               [--full-every-ms 500] [--full-ms 20] [--pace-ms MS] [--tree DIR]
//
// A writer in a child process of its own serves --sessions chunked SSE streams on 127.0.0.1 and
// writes --rate events a second to each, --per-write of them in one write (1: one event per read at
// full rate, as the simulator writes them; more: events in bunches), ~1.8 KB each, spread evenly
// over the sessions. Every --full-every-ms the sink's outbox (src/ingest/outbox.ts) is full for
// --full-ms, as the main thread's acknowledgements make it in the heavy mix: every session that reads
// meanwhile is held, and resumes when it has room. --pace-ms MS paces this thread's reads as an
// ingest worker's are (src/util/read-pacing.ts, upstream.read_pacing; 0 or absent: as bytes arrive). --tree DIR reads with that checkout's code instead
// (`git archive <commit> | tar -x -C DIR`, node_modules linked): run the two back to back, on a
// busy machine several times. Events per chunk say which regime a run was in: the writer lags on a
// loaded machine, and its events then arrive in bunches.
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline';

const { values: args, positionals } = parseArgs({
  options: {
    sessions: { type: 'string' },
    rate: { type: 'string' },
    'per-write': { type: 'string' },
    seconds: { type: 'string' },
    'full-every-ms': { type: 'string' },
    'full-ms': { type: 'string' },
    tree: { type: 'string' },
    'pace-ms': { type: 'string' },
    port: { type: 'string' },
  },
  allowPositionals: true,
  strict: true,
});
const sessions = Number(args.sessions ?? 1000);
const rate = Number(args.rate ?? 20);
const perWrite = Number(args['per-write'] ?? 1);
const seconds = Number(args.seconds ?? 10);
const fullEveryMs = Number(args['full-every-ms'] ?? 500);
const fullMs = Number(args['full-ms'] ?? 20);

const TEXT = 'x'.repeat(1500);
function frame(seq: number): string {
  const env = {
    seq,
    event: {
      ts: Date.now() * 1000,
      type: 'console_log',
      category: 'console',
      source: { url: 'https://example.com/page' },
      data: { level: 'info', text: TEXT },
    },
  };
  return `id: ${seq}\ndata: ${JSON.stringify(env)}\n\n`;
}

if (positionals[0] === 'writer') writer();
else await reader();

/** The child: serves the streams and writes their events on a schedule spread over the sessions. */
function writer(): void {
  const live: Array<{ s: Socket; seq: number; next: number }> = [];
  const interval = (1000 / rate) * perWrite;
  const server = createServer((s) => {
    s.setNoDelay(true);
    s.once('data', () => {
      s.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      live.push({ s, seq: 0, next: performance.now() + (live.length * interval) / sessions });
    });
    s.on('error', () => {});
  });
  // Gone with its parent, also when that was killed.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(0), 500).unref();
  server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    process.stdout.write(`${typeof a === 'object' && a ? a.port : 0}\n`);
  });
  setInterval(() => {
    const now = performance.now();
    for (const c of live) {
      while (c.next <= now) {
        let body = '';
        for (let i = 0; i < perWrite; i++) body += frame(++c.seq);
        const n = Buffer.byteLength(body);
        c.s.write(`${n.toString(16)}\r\n${body}\r\n`);
        c.next += interval;
      }
    }
  }, 2);
}

async function reader(): Promise<void> {
  const tree = resolve(args.tree ?? '.');
  const load = (p: string): Promise<unknown> => import(pathToFileURL(resolve(tree, p)).href);
  const { requestStream } = (await load(
    'src/upstream/stream-request.ts',
  )) as typeof import('../src/upstream/stream-request.js');
  const { readConnection } = (await load(
    'src/stream/connection-reader.ts',
  )) as typeof import('../src/stream/connection-reader.js');
  const { SequencedStream } = (await load(
    'src/stream/sequenced-stream.ts',
  )) as typeof import('../src/stream/sequenced-stream.js');
  const { Outbox } = (await load('src/ingest/outbox.ts')) as typeof import('../src/ingest/outbox.js');

  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'writer', ...process.argv.slice(2)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((ok) => createInterface({ input: child.stdout }).once('line', ok));

  // The outbox as a worker's sessions see it; "full" is made by posting bytes it never had acknowledged.
  const outbox = new Outbox(() => {}, 1);
  let events = 0;
  let chunks = 0;
  const open = new Set<Socket>();
  const url = new URL(`http://127.0.0.1:${port}/stream`);
  const stop = new AbortController();
  for (let i = 0; i < sessions; i++) {
    const res = await requestStream(
      { url, headers: {}, signal: stop.signal, connectTimeoutMs: 10_000, headersTimeoutMs: 10_000 },
      open,
    );
    let stopped = false;
    stop.signal.addEventListener('abort', () => (stopped = true));
    void readConnection(res.body, stop, {
      idleTimeoutMs: 45_000,
      now: Date.now,
      stream: new SequencedStream({ lastSeq: 0, epoch: 0 }, 'oldest'),
      hold: { release: undefined },
      push(items) {
        events += items.length;
        chunks++;
        return outbox.full ? outbox.waitForRoom() : undefined;
      },
      stopped: () => stopped,
      delivered: () => {},
    });
  }
  const fill = setInterval(() => {
    outbox.acked(-1); // one byte posted and not acknowledged: full
    setTimeout(() => outbox.acked(1), fullMs);
  }, fullEveryMs);

  // --pace-ms: the ingest workers' read pacing (src/util/read-pacing.ts), here in this thread.
  const paceMs = Number(args['pace-ms'] ?? 0);
  if (paceMs > 0) {
    const { paceReads } = (await load('src/util/read-pacing.ts')) as typeof import('../src/util/read-pacing.js');
    paceReads(paceMs);
  }
  await new Promise((r) => setTimeout(r, 3000));
  const e0 = events;
  const c0 = chunks;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cpu = process.cpuUsage(cpu0);
  const wall = (performance.now() - t0) / 1000;
  const n = events - e0;
  clearInterval(fill);
  stop.abort();
  child.kill();
  const [load1] = (await import('node:os')).loadavg();
  console.log(
    JSON.stringify({
      tree,
      sessions,
      perWrite,
      eventsPerSecond: Math.round(n / wall),
      eventsPerChunk: +(n / (chunks - c0)).toFixed(2),
      userMicrosPerEvent: +(cpu.user / n).toFixed(2),
      systemMicrosPerEvent: +(cpu.system / n).toFixed(2),
      cpuMicrosPerEvent: +((cpu.user + cpu.system) / n).toFixed(2),
      load1m: +load1!.toFixed(1),
    }),
  );
  process.exit(0);
}
