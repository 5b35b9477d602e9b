import { describe, expect, it } from 'vitest';
import { containerMemoryLimit, HELD_SHARE, startMemoryGuard } from '../../../src/util/memory-budget.js';
import { buildConfig } from '../../../src/config/load-config.js';

const files =
  (m: Record<string, string>) =>
  (path: string): string => {
    if (!(path in m)) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    return m[path]!;
  };

describe('containerMemoryLimit', () => {
  const cases: Array<[string, Record<string, string>, number | undefined]> = [
    ['cgroup v2 with a limit', { '/sys/fs/cgroup/memory.max': '402653184\n' }, 402653184],
    ['cgroup v2 without a limit', { '/sys/fs/cgroup/memory.max': 'max\n' }, undefined],
    ['cgroup v1 with a limit', { '/sys/fs/cgroup/memory/memory.limit_in_bytes': '268435456' }, 268435456],
    [
      'cgroup v1 "unlimited" (a huge number)',
      { '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712' },
      undefined,
    ],
    ['no cgroup files', {}, undefined],
  ];
  for (const [name, fs, want] of cases) it(name, () => expect(containerMemoryLimit(files(fs))).toBe(want));
});

describe('memory guard', () => {
  it('is over above 85 % of the budget and stays over until below 75 %', async () => {
    let rss = 50;
    const changes: boolean[] = [];
    const g = startMemoryGuard(100, { intervalMs: 5, rss: () => rss });
    g.watch((over) => changes.push(over));
    const tick = () => new Promise((r) => setTimeout(r, 20));
    await tick();
    expect(g.over).toBe(false);
    rss = 90;
    await tick();
    expect(g.over).toBe(true);
    rss = 80;
    await tick();
    expect(g.over).toBe(true);
    rss = 70;
    await tick();
    expect(g.over).toBe(false);
    g.stop();
    expect(changes).toEqual([true, false]);
  });
});

describe('held bytes', () => {
  it('count at once, without waiting for RSS: over while they exceed their share of the budget', () => {
    let pending = 0;
    let sending = 0;
    const g = startMemoryGuard(1000, { intervalMs: 60_000, rss: () => 0 });
    g.countHeld(() => pending);
    g.countHeld(() => sending);
    expect(g.over).toBe(false);
    pending = 300;
    sending = 1000 * HELD_SHARE - 300;
    expect(g.heldBytes).toBe(500);
    expect(g.over).toBe(false);
    sending += 1;
    expect(g.over).toBe(true);
    pending = 0;
    expect(g.over).toBe(false);
    g.stop();
  });
});

describe('BRIDGE_MEMORY_LIMIT', () => {
  const env = { BROWSER_API_URL: 'http://127.0.0.1:1', BROWSER_API_KEY: 'k' };
  it('takes a size, "off", or nothing (the container limit)', () => {
    expect(buildConfig({}, { ...env, BRIDGE_MEMORY_LIMIT: '384MiB' }).memoryLimitBytes).toBe(384 * 1024 * 1024);
    expect(buildConfig({ memory_limit: '1GiB' }, env).memoryLimitBytes).toBe(1024 ** 3);
    expect(buildConfig({}, { ...env, BRIDGE_MEMORY_LIMIT: 'off' }).memoryLimitBytes).toBe('off');
    expect(buildConfig({}, env).memoryLimitBytes).toBeUndefined();
    expect(() => buildConfig({}, { ...env, BRIDGE_MEMORY_LIMIT: '12 apples' })).toThrow(/BRIDGE_MEMORY_LIMIT/);
    expect(() => buildConfig({}, { ...env, BRIDGE_MEMORY_LIMIT: '1MiB' })).toThrow(/BRIDGE_MEMORY_LIMIT/);
  });
});
