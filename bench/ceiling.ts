// The parse-only ceiling: a separate process that reads the same simulator streams as the bridge
// (GET /browsers/{id}/telemetry/stream?replay=all with the bridge's headers, see
// src/upstream/client.ts) and does only what no bridge can skip: fetch, a streaming TextDecoder,
// eventsource-parser and JSON.parse of each frame. Events/s here is the most any reader of these
// streams could reach on this machine, against which the bridge's throughput is a ratio.
//
//   npx tsx bench/ceiling.ts --url http://127.0.0.1:PORT --sessions a,b,c --events 50000 [--timeout-s 120]
//
// Reads every session concurrently (as the bridge does), stops each stream after --events events
// and prints one JSON line {events, bytes, seconds, eventsPerSecond} once all are read. Exit 1 with
// one error line on a failed stream or on timeout.
import { parseArgs } from 'node:util';
import { createParser } from 'eventsource-parser';

function fail(message: string): never {
  process.stderr.write(`ceiling: ${message}\n`);
  process.exit(1);
}

let args;
try {
  ({ values: args } = parseArgs({
    options: {
      url: { type: 'string' },
      sessions: { type: 'string' },
      events: { type: 'string' },
      key: { type: 'string' },
      'timeout-s': { type: 'string' },
    },
    strict: true,
  }));
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
const base = args.url ?? fail('--url is required');
const sessions = (args.sessions ?? '').split(',').filter(Boolean);
if (sessions.length === 0) fail('--sessions must name at least one session');
const perSession = Number(args.events);
if (!Number.isInteger(perSession) || perSession < 1) fail('--events must be a positive integer');
const timeoutS = Number(args['timeout-s'] ?? '300');
const key = args.key ?? 'sim-key';

let events = 0;
let bytes = 0;

async function readSession(id: string): Promise<void> {
  const abort = new AbortController();
  const res = await fetch(`${base}/browsers/${encodeURIComponent(id)}/telemetry/stream?replay=all`, {
    headers: {
      authorization: `Bearer ${key}`,
      accept: 'text/event-stream',
      'cache-control': 'no-cache',
      'user-agent': 'bench-ceiling',
    },
    signal: abort.signal,
  });
  if (res.status !== 200 || !res.body) fail(`session ${id}: HTTP ${res.status}`);
  let read = 0;
  const parser = createParser({
    onEvent(message) {
      JSON.parse(message.data);
      read++;
    },
  });
  const decoder = new TextDecoder();
  const reader = res.body.getReader();
  while (read < perSession) {
    const { done, value } = (await reader.read()) as
      { done: true; value?: undefined } | { done: false; value: Uint8Array };
    if (done) fail(`session ${id}: stream ended after ${read} of ${perSession} events`);
    bytes += value.byteLength;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  events += Math.min(read, perSession);
  // The simulator keeps a live session's stream open: end it ourselves.
  abort.abort();
  await reader.cancel().catch(() => {});
}

const timer = setTimeout(
  () => fail(`not all events read within ${timeoutS} s (${events} of ${perSession * sessions.length})`),
  timeoutS * 1000,
);
const t0 = performance.now();
await Promise.all(sessions.map(readSession)).catch((err: unknown) =>
  fail(err instanceof Error ? err.message : String(err)),
);
const seconds = (performance.now() - t0) / 1000;
clearTimeout(timer);
process.stdout.write(
  JSON.stringify({ events, bytes, seconds: +seconds.toFixed(3), eventsPerSecond: Math.round(events / seconds) }) + '\n',
);
process.exit(0);
