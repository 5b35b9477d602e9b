// Spans of sessions read in ingest worker threads (docs/traces.md): built in the worker beside the
// mapper, shipped with the records' batches, sent and carried through checkpoints on the main
// thread. They must be the spans the main thread builds for the same events, records must point at
// them, and a worker that dies mid-navigation must cost nothing but a re-read.
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReceivedSpan } from '../../../src/devkit/receiver/decode-traces.js';
import { FAST, harness, sleep, until, type Harness } from '../../helpers/harness.js';

const IDS = ['ws1', 'ws2', 'ws3'];
const EVENTS = 400;

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

/** A span apart from when (each run emits the same events at other instants) and from the sending process. */
const shape = (s: ReceivedSpan): string =>
  JSON.stringify({ ...s, resource: undefined }, (k, v: unknown) =>
    k.endsWith('TimeUnixNano') ? undefined : typeof v === 'bigint' ? v.toString() : v,
  );
const shapes = (spans: readonly ReceivedSpan[]) => new Map(spans.map((s) => [s.spanId, shape(s)]));

/** Spans open in the state stored with a checkpoint: id and start. */
interface Open {
  spanId: string;
  startMicros: number;
}

async function run(workers: number, killWorker = false): Promise<{ h: Harness; openAtDeath: Open[] }> {
  const h = await harness({ bufferSize: 10_000 });
  harnesses.push(h);
  const openAtDeath: Open[] = [];
  for (const id of IDS) h.sim.createSession(id).emit(EVENTS / 2);
  // The kill waits for a stored state with open pages: with the default capture interval the first
  // half is read and stored before any later capture, whose state may hold no open page at all.
  // Capturing at every batch (traces.state_interval 0) makes the stored state the last batch's.
  const config = killWorker ? { ...FAST, traces: { state_interval: '0s' } } : FAST;
  const bridge = await h.startBridge(config, {
    BRIDGE_SESSIONS: IDS.join(','),
    BRIDGE_WORKERS: String(workers),
    BRIDGE_TRACES: 'true',
  });
  expect(bridge.ingest?.size ?? 0).toBe(workers);
  if (killWorker) {
    // Once checkpoints carry open pages: the worker dies in the middle of navigations.
    for (let i = 0; i < 1000 && openAtDeath.length === 0; i++) {
      for (const row of await bridge.store.sessions()) {
        if (row.spans === undefined) continue;
        const { open } = JSON.parse(row.spans) as { open: { docs: Open[]; requests: Open[] } };
        openAtDeath.push(...open.docs, ...open.requests);
      }
      if (openAtDeath.length === 0) await sleep(20);
    }
    const slots = (bridge.ingest as unknown as { slots: Array<{ worker: Worker }> }).slots;
    await slots[0]!.worker.terminate();
  }
  for (const id of IDS) h.sim.session(id)!.emit(EVENTS / 2);
  const uids = () => new Set(h.receiver.records.map((r) => r.attributes['log.record.uid'])).size;
  await until(() => uids() >= IDS.length * EVENTS, 'every event delivered', 30_000);
  for (const id of IDS) h.sim.session(id)!.end();
  await bridge.supervisor.untilAllEnded();
  await bridge.shutdown();
  return { h, openAtDeath };
}

let mainThread: ReturnType<typeof run> | undefined;

describe('spans from ingest workers', () => {
  it('are the spans the main thread builds for the same events, and records point at them', async () => {
    const expected = (await (mainThread ??= run(0))).h.receiver.spans;
    const { h } = await run(2);
    expect(expected.length).toBeGreaterThan(20);
    expect(shapes(h.receiver.spans)).toEqual(shapes(expected));
    const ids = new Set(h.receiver.spans.map((s) => `${s.traceId}/${s.spanId}`));
    const pointing = h.receiver.records.filter((r) => r.spanId !== undefined && r.spanId !== '');
    expect(pointing.length).toBeGreaterThan(0);
    for (const r of pointing) expect(ids.has(`${r.traceId}/${r.spanId}`), `${r.traceId}/${r.spanId}`).toBe(true);
  }, 60_000);

  it('a worker that dies mid-navigation costs a re-read: its sessions continue their spans from the checkpoint', async () => {
    const expected = (await (mainThread ??= run(0))).h.receiver.spans;
    const { h, openAtDeath } = await run(1, true);
    expect(shapes(h.receiver.spans)).toEqual(shapes(expected));
    // Pages open when the worker died were completed from where they began, not from the first
    // event read again after the checkpoint.
    expect(openAtDeath.length).toBeGreaterThan(0);
    for (const open of openAtDeath)
      for (const s of h.receiver.spans.filter((x) => x.spanId === open.spanId))
        expect(s.startTimeUnixNano).toBe(BigInt(open.startMicros) * 1000n);
  }, 60_000);
});
