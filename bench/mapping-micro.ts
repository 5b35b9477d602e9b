// Micro-benchmark of the mapper's per-event cost (src/mapping/mapper.ts with the default mapping
// options: redaction on), over three shapes of traffic. Not a test; prints ns/event per shape.
//
//   npx tsx bench/mapping-micro.ts [--reps 5] [--ms 300] [--against DIR]
//
// --against DIR times the mapper of another checkout too (e.g. `git worktree add` or
// `git archive <commit> | tar -x -C DIR`, with node_modules linked), alternating with this tree's
// timing by timing: the before/after of a change on a busy machine.
//
// Shapes:
//   simulator mix  the simulator's seeded mix of every category (src/devkit/simulator), screenshots
//                  excluded (their cost is the PNG's copy, not the mapping)
//   network bodies requests and responses with the bodies real pages exchange: a 2 KB JSON API
//                  answer without secrets, a 9 KB JSON answer cut by the service at 8,192 bytes
//                  (`...[truncated]`) with a refresh_token in it, an anti-XSSI-prefixed answer, a
//                  login form, a multipart upload, an HTML page with links
//   console text   console_log lines without URLs (what nearly every console event is)
//   console + signed URL  console_log lines printing a signed URL in `text` and `args`
//
// One process, warmed up on every shape, then each shape timed --reps times for about --ms of CPU
// time; the median is printed (CPU ns per event). A quiet machine still gives steadier figures:
// neighbours share the caches.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { EventFactory } from '../src/devkit/simulator/events/event-factory.js';
import { createRng } from '../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL } from '../src/devkit/simulator/pools.js';
import { defaultMappingOptions } from '../src/config/mapping-section.js';
import { createMapper } from '../src/mapping/mapper.js';
import type { Envelope } from '../src/upstream/envelope.js';
import type { SessionContext } from '../src/vocabulary/log-record.js';

const { values: args } = parseArgs({
  options: { reps: { type: 'string' }, ms: { type: 'string' }, against: { type: 'string' } },
  strict: true,
});
const reps = Number(args.reps ?? '5');
const budgetMs = Number(args.ms ?? '300');

const CTX: SessionContext = { sessionId: 'bench', attributes: { 'browser.pool.id': 'pool-1' }, epoch: 0 };
const PAGE = { url: 'https://shop.example.com/checkout', frame_id: 'F1A2B3', loader_id: 'L4C5D6' };
const SOURCE = { kind: 'cdp', event: 'Network.loadingFinished', metadata: { telemetry_session_id: 'b7c9e0f2' } };

function envelope(seq: number, type: string, category: string, data: Record<string, unknown>): Envelope {
  return { seq, event: { ts: 1_700_000_000_000_000 + seq, type, category, source: SOURCE, data } };
}

/** What the service sends for a string over 8,192 bytes (docs/service-api.md "Envelope"). */
function cut(s: string): string {
  return s.length <= 8192 ? s : s.slice(0, 8192 - 14) + '...[truncated]';
}

function simulatorMix(): Envelope[] {
  const factory = new EventFactory(createRng(7), 'bench', CAPTURE_ALL);
  const out: Envelope[] = [];
  for (let seq = 1; out.length < 4000; seq++) {
    const event = factory.next();
    if (event !== undefined && event.type !== 'monitor_screenshot') out.push({ seq, event });
  }
  return out;
}

function networkBodies(): Envelope[] {
  const items = Array.from({ length: 24 }, (_, i) => ({
    id: 1000 + i,
    sku: `SKU-${i}-BLUE`,
    title: `Running shoe model ${i}`,
    price: { amount: 129.9 + i, currency: 'EUR' },
    image: `https://cdn.shop.example.com/img/${i}.webp`,
  }));
  const api = JSON.stringify({ items, page: 1, total: 240 });
  const big = cut(
    JSON.stringify({
      user: { id: 42, email: 'alice@example.com' },
      history: Array.from({ length: 80 }, (_, i) => ({ order: i, status: 'shipped', note: 'left at the door' })),
      refresh_token: 'rt-0123456789abcdef',
    }),
  );
  const xssi = `)]}'\n${JSON.stringify({ session: { csrf_token: 'c-1' }, ok: true })}`;
  const form = 'email=alice%40example.com&password=hunter2&remember=1';
  const multipart =
    '------WebKitFormBoundary7MA4YWxk\r\nContent-Disposition: form-data; name="title"\r\n\r\nHoliday\r\n' +
    '------WebKitFormBoundary7MA4YWxk\r\nContent-Disposition: form-data; name="api_key"\r\n\r\nk-123\r\n' +
    '------WebKitFormBoundary7MA4YWxk--\r\n';
  const html = `<!doctype html><html><body>${'<p><a href="https://shop.example.com/p/1?ref=home">Shoe</a> in stock</p>'.repeat(60)}</body></html>`;
  const headers = { 'content-type': 'application/json', 'cache-control': 'no-store', server: 'nginx' };
  const response = (seq: number, body: string, mime: string): Envelope =>
    envelope(seq, 'network_response', 'network', {
      ...PAGE,
      url: `https://api.shop.example.com/v1/r/${seq}`,
      headers,
      method: 'GET',
      mime_type: mime,
      request_id: `R${seq}`,
      resource_type: 'Fetch',
      status: 200,
      status_text: 'OK',
      body,
    });
  const request = (seq: number, postData: string): Envelope =>
    envelope(seq, 'network_request', 'network', {
      ...PAGE,
      url: `https://api.shop.example.com/v1/q/${seq}`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer x' },
      post_data: postData,
      request_id: `Q${seq}`,
      resource_type: 'Fetch',
    });
  const out: Envelope[] = [];
  for (let i = 0; out.length < 600; i++) {
    const seq = out.length + 1;
    switch (i % 6) {
      case 0:
        out.push(response(seq, api, 'application/json'));
        break;
      case 1:
        out.push(response(seq, big, 'application/json'));
        break;
      case 2:
        out.push(response(seq, xssi, 'application/json'));
        break;
      case 3:
        out.push(request(seq, form));
        break;
      case 4:
        out.push(request(seq, multipart));
        break;
      default:
        out.push(response(seq, html, 'text/html'));
    }
  }
  return out;
}

function consoleText(signed: boolean): Envelope[] {
  return Array.from({ length: 2000 }, (_, i) => {
    const text = signed
      ? `download ready: https://bucket.s3.example.com/report.pdf?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff${i}`
      : `[checkout] step ${i} ok: cart=3 items total=129.90 EUR`;
    return envelope(i + 1, 'console_log', 'console', { ...PAGE, level: 'log', text, args: [text, String(i)] });
  });
}

type MapperFactory = typeof createMapper;

/** The mapper of another checkout (`--against DIR`), built with that checkout's default options. */
async function mapperOf(dir: string): Promise<ReturnType<MapperFactory>> {
  const root = resolve(dir);
  const m = (await import(pathToFileURL(join(root, 'src/mapping/mapper.ts')).href)) as { createMapper: MapperFactory };
  const o = (await import(pathToFileURL(join(root, 'src/config/mapping-section.ts')).href)) as {
    defaultMappingOptions: typeof defaultMappingOptions;
  };
  return m.createMapper(o.defaultMappingOptions);
}

async function main(): Promise<void> {
  const mappers = [{ label: 'this tree', mapper: createMapper(defaultMappingOptions) }];
  if (args.against !== undefined) mappers.push({ label: args.against, mapper: await mapperOf(args.against) });
  // Through JSON text, as the stream hands envelopes to the mapper: strings built here would be
  // ropes (concatenations) that read more slowly than the flat strings JSON.parse makes.
  const asParsed = (events: Envelope[]): Envelope[] => events.map((e) => JSON.parse(JSON.stringify(e)) as Envelope);
  const shapes: Array<{ name: string; events: Envelope[] }> = [
    { name: 'simulator mix', events: asParsed(simulatorMix()) },
    { name: 'network bodies', events: asParsed(networkBodies()) },
    { name: 'console text', events: asParsed(consoleText(false)) },
    { name: 'console + signed URL', events: asParsed(consoleText(true)) },
  ];
  let sink = 0;
  // CPU time of this process, not wall time: on a machine shared with other work, wall time
  // counts the neighbours' turns too (at a load of 19 on 2 cores it moved the figures by 2-5x).
  const cpuMicros = (): number => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const time = (mapper: ReturnType<MapperFactory>, events: Envelope[]): number => {
    let passes = 0;
    const t0 = cpuMicros();
    const until = t0 + budgetMs * 1000;
    let now: number;
    do {
      for (const e of events) if (mapper.map(e, CTX, 1) !== null) sink++;
      passes++;
      now = cpuMicros();
    } while (now < until);
    return ((now - t0) * 1000) / passes / events.length;
  };
  for (const s of shapes) for (const m of mappers) time(m.mapper, s.events);
  const median = (v: number[]): number => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
  console.log(`node ${process.version}; ${reps} timings of ~${budgetMs} ms of CPU per shape and mapper, median`);
  for (const s of shapes) {
    // Mappers alternate timing by timing, so a neighbour's burst of load falls on both alike.
    const ns = mappers.map((): number[] => []);
    for (let r = 0; r < reps; r++) mappers.forEach((m, i) => ns[i]!.push(time(m.mapper, s.events)));
    mappers.forEach((m, i) => {
      const label = mappers.length > 1 ? ` ${m.label}`.padEnd(24) : '';
      console.log(
        `  ${s.name.padEnd(20)} ${String(s.events.length).padStart(5)} events${label} ${median(ns[i]!).toFixed(0).padStart(7)} ns/event (CPU)`,
      );
    });
  }
  if (sink === 0) throw new Error('nothing mapped');
}

await main();
