import { describe, expect, it } from 'vitest';
import { createAttribution } from '../../../bench/perf-attribution.js';
import type { Role } from '../../../bench/perf-processes.js';
import { formatPerfReport } from '../../../bench/perf-report-text.js';
import { parsePerfScript } from '../../../bench/perf-script.js';
import { EXCERPT } from './perf-script-excerpt.js';

const roles = new Map<number, Role>([
  [6901, 'bridge'],
  [6955, 'simulator'],
]);

function attribute(text: string, scenario?: { cpuMicrosPerEvent?: number | null; offeredPerSecond?: number }) {
  // 1,000 Hz over one second: a sample is a millisecond of CPU.
  const a = createAttribution({ roles, frequency: 1000, seconds: 1, top: 5, leavesUnder: 1 });
  for (const s of parsePerfScript(text)) a.add(s);
  return a.report(scenario);
}

describe('createAttribution', () => {
  const report = attribute(EXCERPT, { cpuMicrosPerEvent: 36, offeredPerSecond: 1000 });
  const process = (role: Role) => report.processes.find((p) => p.role === role)!;

  it('splits the machine by role, in a fixed order, with CPU seconds and shares of a CPU', () => {
    expect(report.samples).toBe(13);
    expect(report.processes.map((p) => [p.role, p.pids, p.samples])).toEqual([
      ['bridge', [6901], 9],
      ['simulator', [6955], 1],
      ['other', [22, 7038], 2],
      ['idle', [0], 1],
    ]);
    expect(process('bridge').cpuSeconds).toBeCloseTo(0.009);
    expect(process('bridge').cpuShare).toBeCloseTo(0.009);
  });

  it("names threads: a process's main thread, the others by their name with how many there were", () => {
    expect(process('bridge').threads.map((t) => [t.thread, t.threads, t.samples])).toEqual([
      ['ingest-0', 1, 3],
      ['main', 1, 3],
      ['V8Worker', 2, 3],
    ]);
    expect(process('simulator').threads.map((t) => t.thread)).toEqual(['main']);
    // Neighbours by thread name: their pids mean nothing to a reader.
    expect(
      process('other')
        .threads.map((t) => t.thread)
        .sort(),
    ).toEqual(['ksoftirqd/1', 'libuv-worker']);
  });

  it("splits the scenario's µs per event over the bridge's threads by their samples; others get none", () => {
    expect(process('bridge').microsPerEvent).toBeCloseTo(36);
    expect(process('bridge').threads.map((t) => t.microsPerEvent)).toEqual([12, 12, 12]);
    expect(process('simulator').microsPerEvent).toBeNull();
    // 9 ms of bridge CPU in a second of 1,000 offered events.
    expect(report.bridgeMicrosPerEventInWindow).toBeCloseTo(9);
  });

  it('gives each thread its categories as shares that sum to 1', () => {
    const main = process('bridge').threads.find((t) => t.thread === 'main')!;
    expect(main.categories).toMatchObject({ kernel: 1 / 3, javascript: 1 / 3, 'gc-scavenge': 1 / 3, native: 0 });
    const helpers = process('bridge').threads.find((t) => t.thread === 'V8Worker')!;
    expect(helpers.categories).toMatchObject({ 'gc-marking': 1 / 3, 'gc-sweeping': 1 / 3, jit: 1 / 3 });
    for (const p of report.processes) expect(Object.values(p.categories).reduce((a, b) => a + b)).toBeCloseTo(1);
  });

  it("lists the bridge's innermost JS functions per thread, with the leaves under the top ones", () => {
    const ingest = process('bridge').threads.find((t) => t.thread === 'ingest-0')!;
    expect(ingest.functions).toEqual([
      {
        name: 'push src/stream/sequenced-stream.js:52',
        samples: 1,
        share: 1 / 3,
        leaves: [{ name: 'v8::internal::JsonParser::ScanJsonString', share: 1 }],
      },
      { name: 'writeFramedRecord src/wire/encode-record.js:60', samples: 1, share: 1 / 3, leaves: [] },
      { name: 'writeKeyValue src/wire/encode-record.js:26', samples: 1, share: 1 / 3, leaves: [] },
    ]);
    const main = process('bridge').threads.find((t) => t.thread === 'main')!;
    expect(main.functions.map((f) => [f.name, f.samples])).toEqual([
      ['(no JS frame)', 2],
      ['(anonymous) node:internal/validators:98', 1],
    ]);
    expect(main.functions[0]!.leaves).toEqual([
      { name: 'set_user_sigmask', share: 0.5 },
      { name: 'v8::internal::Scavenger::ScavengeObject', share: 0.5 },
    ]);
    // A thread that never ran JavaScript has no such list.
    expect(process('bridge').threads.find((t) => t.thread === 'V8Worker')!.functions).toEqual([]);
    expect(process('simulator').threads[0]!.functions).toEqual([]);
  });

  it('without the scenario figures: no µs per event', () => {
    const bare = attribute(EXCERPT);
    expect(bare.processes[0]!.microsPerEvent).toBeNull();
    expect(bare.bridgeMicrosPerEventInWindow).toBeNull();
  });

  it('empty input: an empty report, and a text that says so', () => {
    const empty = attribute('', { cpuMicrosPerEvent: 36, offeredPerSecond: 1000 });
    expect(empty).toEqual({
      seconds: 1,
      frequency: 1000,
      samples: 0,
      processes: [],
      bridgeMicrosPerEventInWindow: null,
    });
    expect(formatPerfReport(empty)).toContain('0 samples');
  });

  it('reads as a table with a row per process and thread', () => {
    const text = formatPerfReport(report, {
      scenario: 'live-heavy',
      load1m: [1.2, 1.5],
      cpus: 2,
      proc: { cpuSeconds: { bridge: 0.02, simulator: 0 }, windowSeconds: 2 },
    });
    expect(text).toContain('load 1.2 → 1.5');
    expect(text).toContain(
      "of a CPU from /proc over 2.0 s around the recording (perf's): bridge 0.01 (0.01), simulator 0.00 (0.00)",
    );
    expect(text).toMatch(/^bridge \(pid 6901\) +0\.01 +0\.01 +36\.0 /m);
    expect(text).toMatch(/^ {2}V8Worker ×2 /m);
    expect(text).toContain('bridge ingest-0: innermost JS function');
  });
});
