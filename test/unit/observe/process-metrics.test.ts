// The standard process and Node.js metrics (observe/process-metrics.ts): the names dashboards and
// alert rules know, each with its type, present from the first scrape, with values that say what
// this process is doing; and none of them when default metrics are off.
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observe/metrics.js';
import { maxOpenFiles, procStatus } from '../../../src/observe/process-metrics.js';
import { parsePrometheusText, value, type Family } from '../../integration/server/prom-text.js';

const LINUX = process.platform === 'linux';

const EXPECTED: Array<[string, Family['type'], boolean]> = [
  // name, type, Linux only
  ['process_cpu_user_seconds_total', 'counter', false],
  ['process_cpu_system_seconds_total', 'counter', false],
  ['process_cpu_seconds_total', 'counter', false],
  ['process_start_time_seconds', 'gauge', false],
  ['process_resident_memory_bytes', 'gauge', false],
  ['process_virtual_memory_bytes', 'gauge', true],
  ['process_heap_bytes', 'gauge', true],
  ['process_open_fds', 'gauge', true],
  ['process_max_fds', 'gauge', true],
  ['nodejs_eventloop_lag_seconds', 'gauge', false],
  ['nodejs_eventloop_lag_min_seconds', 'gauge', false],
  ['nodejs_eventloop_lag_max_seconds', 'gauge', false],
  ['nodejs_eventloop_lag_mean_seconds', 'gauge', false],
  ['nodejs_eventloop_lag_stddev_seconds', 'gauge', false],
  ['nodejs_eventloop_lag_p50_seconds', 'gauge', false],
  ['nodejs_eventloop_lag_p90_seconds', 'gauge', false],
  ['nodejs_eventloop_lag_p99_seconds', 'gauge', false],
  ['nodejs_active_handles_total', 'gauge', false],
  ['nodejs_active_requests_total', 'gauge', false],
  ['nodejs_active_resources_total', 'gauge', false],
  ['nodejs_heap_size_total_bytes', 'gauge', false],
  ['nodejs_heap_size_used_bytes', 'gauge', false],
  ['nodejs_external_memory_bytes', 'gauge', false],
  ['nodejs_version_info', 'gauge', false],
  ['nodejs_gc_duration_seconds', 'histogram', false],
];

const scrape = async (m: ReturnType<typeof createMetrics>): Promise<Map<string, Family>> =>
  parsePrometheusText(await m.registry.metrics());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const own = (families: Map<string, Family>) =>
  [...families.keys()].filter((n) => n.startsWith('process_') || n.startsWith('nodejs_'));

describe('process and runtime metrics', () => {
  it('are exactly the documented families, each with its type, help and a sample', async () => {
    const families = await scrape(createMetrics());
    const expected = EXPECTED.filter(([, , linuxOnly]) => LINUX || !linuxOnly);
    expect(own(families)).toEqual(expected.map(([n]) => n));
    for (const [name, type] of expected) {
      expect(families.get(name)?.type, name).toBe(type);
      expect(families.get(name)?.help, name).not.toBe('');
      expect(families.get(name)?.samples.length, name).toBeGreaterThan(0);
    }
  });

  it('are absent with defaultMetrics: false', async () => {
    expect(own(await scrape(createMetrics({ defaultMetrics: false })))).toEqual([]);
  });

  it('say what this process is doing', async () => {
    const m = createMetrics();
    const first = await scrape(m);
    // Burn some CPU between two scrapes: the CPU counters move by about as much, and never back.
    const t0 = process.cpuUsage();
    const until = Date.now() + 60;
    while (Date.now() < until) Math.sqrt(Math.random());
    const burnt = process.cpuUsage(t0);
    const second = await scrape(m);
    const cpu = (f: Map<string, Family>) => ['user', 'system'].map((k) => value(f, `process_cpu_${k}_seconds_total`));
    const [u1, s1] = cpu(first);
    const [u2, s2] = cpu(second);
    expect(u2! + s2! - (u1! + s1!)).toBeGreaterThanOrEqual((burnt.user + burnt.system) / 1e6 - 0.002);
    expect(u2).toBeGreaterThanOrEqual(u1!);
    expect(s2).toBeGreaterThanOrEqual(s1!);
    expect(value(second, 'process_cpu_seconds_total')).toBeCloseTo(u2! + s2!, 6);

    expect(Math.abs(value(second, 'process_start_time_seconds') - (Date.now() / 1000 - process.uptime()))).toBeLessThan(
      2,
    );
    const rss = value(second, 'process_resident_memory_bytes');
    expect(rss / process.memoryUsage.rss()).toBeGreaterThan(0.8);
    expect(rss / process.memoryUsage.rss()).toBeLessThan(1.25);
    const heap = process.memoryUsage();
    expect(value(second, 'nodejs_heap_size_total_bytes')).toBeGreaterThan(heap.heapTotal / 2);
    expect(value(second, 'nodejs_heap_size_used_bytes')).toBeLessThanOrEqual(
      value(second, 'nodejs_heap_size_total_bytes'),
    );
    expect(value(second, 'nodejs_external_memory_bytes')).toBeGreaterThan(0);
    const [major, minor, patch] = process.versions.node.split('.');
    expect(
      value(second, 'nodejs_version_info', { version: process.version, major: major!, minor: minor!, patch: patch! }),
    ).toBe(1);
    if (LINUX) {
      expect(value(second, 'process_virtual_memory_bytes')).toBeGreaterThan(rss);
      expect(value(second, 'process_heap_bytes')).toBeGreaterThan(0);
      const fds = value(second, 'process_open_fds');
      expect(fds).toBeGreaterThan(2);
      expect(fds).toBeLessThan(value(second, 'process_max_fds'));
    }
  });

  it('active resources: twenty more timers held are twenty more resources', async () => {
    const m = createMetrics();
    const timers = Array.from({ length: 20 }, () => setInterval(() => {}, 3_600_000));
    const held = value(await scrape(m), 'nodejs_active_resources_total');
    for (const t of timers) clearInterval(t);
    const released = value(await scrape(m), 'nodejs_active_resources_total');
    // Whatever else the process holds is there in both scrapes (give or take the scrape's own).
    expect(held - released).toBeGreaterThanOrEqual(18);
    expect(held - released).toBeLessThanOrEqual(22);
  });

  it('event-loop lag: a blocked loop shows in the scrape after it, and the next scrape starts afresh', async () => {
    const m = createMetrics();
    await scrape(m);
    await sleep(50);
    const until = Date.now() + 300;
    while (Date.now() < until) Math.sqrt(Math.random());
    await sleep(50);
    const blocked = await scrape(m);
    expect(value(blocked, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.25);
    expect(value(blocked, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0.25);
    expect(value(blocked, 'nodejs_eventloop_lag_min_seconds')).toBeLessThanOrEqual(
      value(blocked, 'nodejs_eventloop_lag_p50_seconds'),
    );
    // The instantaneous lag is measured at the scrape, when the loop is free again: not the window's max.
    expect(value(blocked, 'nodejs_eventloop_lag_seconds')).toBeLessThan(0.25);
    await sleep(100);
    const after = await scrape(m);
    expect(value(after, 'nodejs_eventloop_lag_max_seconds')).toBeLessThan(0.25);
    // With no sample yet the statistics are NaN, not a made-up number.
    const fresh = createMetrics();
    expect(value(await scrape(fresh), 'nodejs_eventloop_lag_mean_seconds')).toBeNaN();
  });

  it('gc durations: every kind exists at zero from the start, and collections are counted', async () => {
    const m = createMetrics();
    const kinds = ['major', 'minor', 'incremental', 'weakcb'];
    const before = await scrape(m);
    for (const kind of kinds) expect(value(before, 'nodejs_gc_duration_seconds_count', { kind }), kind).toBe(0);
    // Short-lived garbage, enough for the young generation to be collected several times.
    let keep = 0;
    for (let i = 0; i < 200_000; i++) keep += new Array(64).fill(i).length;
    expect(keep).toBeGreaterThan(0);
    await sleep(50); // the observer is told after the collection
    expect(value(await scrape(m), 'nodejs_gc_duration_seconds_count')).toBeGreaterThan(0);
  });
});

describe('reading /proc', () => {
  it('takes VmRSS, VmSize and VmData from /proc/self/status, in bytes', () => {
    const status =
      'Name:\tnode\nVmPeak:\t  999 kB\nVmSize:\t 1000 kB\nVmRSS:\t   20 kB\nVmData:\t  300 kB\nThreads:\t7\n';
    expect(procStatus(status)).toEqual({ VmSize: 1000 * 1024, VmRSS: 20 * 1024, VmData: 300 * 1024 });
    expect(procStatus('')).toEqual({});
  });

  it.each<[string, number | undefined]>([
    [
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n',
      1024,
    ],
    ['Max open files            unlimited            unlimited            files\n', undefined],
    ['', undefined],
  ])('takes the soft open-files limit from /proc/self/limits', (text, expected) => {
    expect(maxOpenFiles(text)).toBe(expected);
  });
});
