import { describe, expect, it } from 'vitest';
import { placeOf, summarise, type CpuProfile } from '../../../bench/profile-summary.js';

describe('placeOf', () => {
  const cases: Array<[string, string]> = [
    ['', '(native)'],
    ['file:///work/main/node_modules/better-sqlite3/lib/methods/wrappers.js', 'better-sqlite3'],
    [
      'file:///work/main/node_modules/@opentelemetry/otlp-transformer/build/src/x.js',
      '@opentelemetry/otlp-transformer',
    ],
    ['file:///work/wt-bench/src/mapping/mapper.ts', 'src/mapping/mapper.ts'],
    ['file:///work/main/.bench-build/run-42/src/mapping/mapper.js', 'src/mapping/mapper.ts'],
    ['file:///work/main/dist/cli/main.js', '/work/main/dist/cli/main.js'],
    ['node:internal/streams/readable', 'node:internal/streams/readable'],
  ];
  for (const [url, want] of cases) it(`${url || '(empty)'} → ${want}`, () => expect(placeOf(url)).toBe(want));
});

describe('summarise', () => {
  it('adds self time per function and per place, largest first, as shares of busy time; idle apart', () => {
    const frame = (functionName: string, url: string, lineNumber: number) => ({ functionName, url, lineNumber });
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '', -1) },
        { id: 2, callFrame: frame('map', 'file:///r/src/mapping/mapper.ts', 9) },
        { id: 3, callFrame: frame('run', 'file:///r/node_modules/better-sqlite3/lib/x.js', 0) },
        { id: 4, callFrame: frame('', 'file:///r/src/mapping/mapper.ts', 40) },
        { id: 5, callFrame: frame('(idle)', '', -1) },
      ],
      samples: [2, 3, 5, 3, 2, 4, 99, 5],
      timeDeltas: [1000, 3000, 7000, 3000, 1000, 2000, 5000, 4000],
    };
    expect(summarise(profile, 2)).toEqual({
      busyMs: 10,
      idleMs: 11,
      functions: [
        { name: 'run better-sqlite3:1', ms: 6, share: 0.6 },
        { name: 'map src/mapping/mapper.ts:10', ms: 2, share: 0.2 },
      ],
      places: [
        { name: 'better-sqlite3', ms: 6, share: 0.6 },
        { name: 'src/mapping/mapper.ts', ms: 4, share: 0.4 },
      ],
    });
  });
});
