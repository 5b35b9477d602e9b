// /metrics parses as Prometheus text and moves with the traffic; /healthz and /readyz, including
// how a collector outage shows (ready stays 200, the exporter is reported failing, the spool grows).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startInProcess, startWorld, type RunningBridge, type World } from './bridge-harness.js';
import { parsePrometheusText, value, type Family } from './prom-text.js';

let world: World;
let running: RunningBridge;

beforeEach(async () => {
  world = await startWorld();
});

afterEach(async () => {
  await running?.stop(Date.now());
  await world.close();
});

async function scrape(): Promise<Map<string, Family>> {
  const res = await fetch(`${running.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

interface Ready {
  status: string;
  problems: string[];
  exporter: { failing: boolean; lastError?: string };
  spool: { records: number; bytes: number };
}

async function readyz(): Promise<{ status: number; body: Ready }> {
  const res = await fetch(`${running.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Ready };
}

describe('/metrics', () => {
  it('is valid exposition text with every documented family, and the counters move when events flow', async () => {
    const s = world.sim.createSession('m1');
    running = await startInProcess(world, { sessions: ['m1'] });

    const before = await scrape();
    for (const [name, type] of [
      ['bridge_events_received_total', 'counter'],
      ['bridge_events_delivered_total', 'counter'],
      ['bridge_events_filtered_total', 'counter'],
      ['bridge_events_rejected_total', 'counter'],
      ['bridge_events_duplicate_total', 'counter'],
      ['bridge_gap_records_total', 'counter'],
      ['bridge_missing_events_total', 'counter'],
      ['bridge_malformed_frames_total', 'counter'],
      ['bridge_tails_unknown_total', 'counter'],
      ['bridge_archive_repaired_events_total', 'counter'],
      ['bridge_archive_owed_gaps', 'gauge'],
      ['bridge_reconnects_total', 'counter'],
      ['bridge_export_requests_total', 'counter'],
      ['bridge_export_duration_seconds', 'histogram'],
      ['bridge_spool_records', 'gauge'],
      ['bridge_spool_bytes', 'gauge'],
      ['bridge_oldest_undelivered_age_seconds', 'gauge'],
      ['bridge_sessions', 'gauge'],
      ['bridge_config_reloads_total', 'counter'],
      ['bridge_memory_held_bytes', 'gauge'],
      ['process_resident_memory_bytes', 'gauge'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
    ] as const) {
      expect(before.get(name)?.type, name).toBe(type);
      expect(before.get(name)?.help, name).not.toBe('');
    }
    expect(value(before, 'bridge_events_received_total')).toBe(0);

    s.emit(40);
    s.injectMalformed('json');
    s.emit(9);
    await world.receiver.waitFor((rs) => rs.length === 50); // 49 events + the bad frame's event, read from the archive
    const after = await eventually(async () => {
      const m = await scrape();
      return value(m, 'bridge_events_delivered_total') === 50 ? m : undefined;
    }, 'delivered counter');
    expect(value(after, 'bridge_events_received_total')).toBe(50);
    expect(value(after, 'bridge_malformed_frames_total')).toBe(1);
    expect(value(after, 'bridge_archive_repaired_events_total')).toBe(1);
    expect(value(after, 'bridge_gap_records_total')).toBe(0);
    expect(value(after, 'bridge_missing_events_total')).toBe(0);
    expect(value(after, 'bridge_export_requests_total')).toBeGreaterThan(0);
    expect(value(after, 'bridge_export_duration_seconds_count')).toBe(value(after, 'bridge_export_requests_total'));
    expect(value(after, 'bridge_sessions', { state: 'streaming' })).toBe(1);
    expect(value(after, 'bridge_spool_records')).toBe(0);
    expect(value(after, 'bridge_spool_bytes')).toBe(0);
    expect(value(after, 'bridge_oldest_undelivered_age_seconds')).toBe(0);
    // No per-session label anywhere: series stay bounded with a thousand sessions.
    for (const fam of after.values())
      for (const sample of fam.samples) expect(Object.values(sample.labels)).not.toContain('m1');
  });
});

describe('/healthz and /readyz', () => {
  it('healthz is ok; readyz stays 200 while the collector is down, reports it, and the spool gauges grow then drain', async () => {
    const s = world.sim.createSession('r1');
    running = await startInProcess(world, { sessions: ['r1'] });
    const health = await fetch(`${running.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ok = await readyz();
    expect(ok).toMatchObject({ status: 200, body: { status: 'ready', problems: [], exporter: { failing: false } } });

    await world.receiver.stop();
    // Two bursts half a second apart: the gauge must follow the oldest record, not the newest.
    const oldestTs = Math.min(...s.emit(5).map((e) => e.event.ts)) / 1e6;
    await new Promise((r) => setTimeout(r, 500));
    s.emit(20);
    const down = await eventually(async () => {
      const r = await readyz();
      return r.body.exporter.failing && r.body.spool.records === 25 ? r : undefined;
    }, 'exporter reported failing');
    expect(down.status).toBe(200);
    expect(down.body.status).toBe('ready');
    expect(down.body.exporter.lastError).toBeTruthy();
    const ageBetween = async (): Promise<[number, number, number]> => {
      const from = Date.now() / 1000 - oldestTs;
      const age = value(await scrape(), 'bridge_oldest_undelivered_age_seconds');
      return [from, age, Date.now() / 1000 - oldestTs];
    };
    const m = await scrape();
    expect(value(m, 'bridge_spool_records')).toBe(25);
    expect(value(m, 'bridge_spool_bytes')).toBeGreaterThan(0);
    // Undelivered records are held in memory too (waiting in the ready queue, or in the request being retried).
    const held = (x: typeof m): number =>
      ['pending', 'ready', 'sending'].reduce((n, stage) => n + value(x, 'bridge_memory_held_bytes', { stage }), 0);
    expect(
      value(m, 'bridge_memory_held_bytes', { stage: 'ready' }) +
        value(m, 'bridge_memory_held_bytes', { stage: 'sending' }),
    ).toBeGreaterThan(0);
    expect(held(m)).toBeLessThanOrEqual(value(m, 'bridge_spool_bytes'));
    // The age is now − the oldest undelivered event's ts (taken around the scrape; 1 ms for rounding),
    // at least the half second between the bursts, and it grows while the collector stays down.
    const [from1, age1, to1] = await ageBetween();
    expect(age1).toBeGreaterThanOrEqual(0.5);
    expect(age1).toBeGreaterThanOrEqual(from1 - 0.001);
    expect(age1).toBeLessThanOrEqual(to1 + 0.001);
    await new Promise((r) => setTimeout(r, 300));
    const [from2, age2, to2] = await ageBetween();
    expect(age2).toBeGreaterThanOrEqual(from2 - 0.001);
    expect(age2).toBeLessThanOrEqual(to2 + 0.001);
    expect(age2 - age1).toBeGreaterThanOrEqual(0.3 - 0.002);
    expect(value(m, 'bridge_events_delivered_total')).toBe(0);
    const failures = [...m.get('bridge_export_requests_total')!.samples].filter(
      (x) => x.labels['outcome'] !== 'success',
    );
    expect(failures.reduce((n, x) => n + x.value, 0)).toBeGreaterThan(0);

    await world.receiver.start();
    await world.receiver.waitFor((rs) => rs.length === 25);
    const back = await eventually(async () => {
      const r = await readyz();
      return !r.body.exporter.failing && r.body.spool.records === 0 ? r : undefined;
    }, 'exporter recovered');
    expect(back.status).toBe(200);
    // Everything delivered: nothing is undelivered, so no age, and nothing held.
    const drained = await scrape();
    expect(value(drained, 'bridge_oldest_undelivered_age_seconds')).toBe(0);
    for (const stage of ['pending', 'ready', 'sending'])
      expect(value(drained, 'bridge_memory_held_bytes', { stage }), stage).toBe(0);
  });
});
