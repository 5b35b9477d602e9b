// Micro-benchmark of what traces cost per event: the per-event path of one session (map → encode)
// without traces, and with the span tap (span builder + record ids + span encoding) in it, over the
// simulator's seeded mix of every category (page loads, requests, console, interactions, …). Not a
// test; prints ns/event for both and the difference.
//
//   npx tsx bench/traces-micro.ts [--events 20000] [--reps 5]
//
// Both paths run alternately in one process on the same envelopes, after a warm-up; the median of
// --reps timings is printed. Screenshots are left out of the mix (their cost is the PNG, the same
// with or without traces).
import { parseArgs } from 'node:util';
import { defaultMappingOptions } from '../src/config/mapping-section.js';
import { EventFactory } from '../src/devkit/simulator/events/event-factory.js';
import { createRng } from '../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL } from '../src/devkit/simulator/pools.js';
import { createMapper } from '../src/mapping/mapper.js';
import { spanTapFactory } from '../src/session/span-tap.js';
import type { Envelope } from '../src/upstream/envelope.js';
import { createRecordEncoder } from '../src/wire/encode-record.js';

const { values: args } = parseArgs({
  options: { events: { type: 'string' }, reps: { type: 'string' } },
  strict: true,
});
const n = Number(args.events ?? '20000');
const reps = Number(args.reps ?? '5');

const factory = new EventFactory(createRng(11), 'bench', CAPTURE_ALL);
const envelopes: Envelope[] = [];
for (let seq = 1; envelopes.length < n; seq++) {
  const event = factory.next();
  if (event === undefined || event.type === 'monitor_screenshot') continue;
  envelopes.push({ seq, event });
}
const mapper = createMapper(defaultMappingOptions, { screenshots: { write: () => '/dev/null' } });
const encode = createRecordEncoder();
const ctx = { sessionId: 'bench', attributes: {}, epoch: 0 };
let spans = 0;
const taps = spanTapFactory({ offer: (b) => (spans += b.length) });

function run(traces: boolean): number {
  const tap = traces ? taps('bench') : undefined;
  let bytes = 0;
  const t0 = process.hrtime.bigint();
  for (const env of envelopes) {
    const record = mapper.map(env, ctx, env.event.ts);
    tap?.observe(env, record);
    if (record !== null) bytes += encode(record).length;
  }
  tap?.end();
  const ns = Number(process.hrtime.bigint() - t0);
  if (bytes === 0) throw new Error('nothing encoded');
  return ns / envelopes.length;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
run(false);
run(true);
const off: number[] = [];
const on: number[] = [];
for (let i = 0; i < reps; i++) {
  off.push(run(false));
  on.push(run(true));
}
const a = median(off);
const b = median(on);
console.log(`events: ${envelopes.length} (simulator mix, no screenshots); spans per pass: ${spans / (reps + 1)}`);
console.log(`traces off: ${a.toFixed(0)} ns/event`);
console.log(
  `traces on:  ${b.toFixed(0)} ns/event  (+${(b - a).toFixed(0)} ns, +${(((b - a) / a) * 100).toFixed(0)} %)`,
);
