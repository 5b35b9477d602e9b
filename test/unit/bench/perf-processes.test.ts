import { describe, expect, it } from 'vitest';
import { classifyProcesses, roleOf, type ProcessInfo, type Role } from '../../../bench/perf-processes.js';
import { perfAccessProblem } from '../../../bench/perf-record.js';

const BUILD = '/work/wt/x/.bench-build/run-4242';
const proc = (pid: number, ppid: number, ...argv: string[]): ProcessInfo => ({ pid, ppid, argv });

describe('classifyProcesses', () => {
  const cases: Array<{ name: string; processes: ProcessInfo[]; want: Array<[number, Role]> }> = [
    {
      name: 'an in-process scenario: the scenario process is the bridge, its peers by script',
      processes: [
        proc(1, 0, '/sbin/init'),
        proc(100, 1, 'node', '--import', 'tsx', 'bench/perf-threads.ts'),
        proc(101, 100, 'node', '--import', 'tsx', 'bench/throughput.ts', 'live-heavy'),
        proc(102, 101, 'node', '--perf-basic-prof', `${BUILD}/bench/throughput.js`, 'live-heavy'),
        proc(103, 102, 'node', '--perf-basic-prof', `${BUILD}/src/devkit/simulator/main.js`, '--port', '0'),
        proc(104, 102, 'node', `${BUILD}/bench/sink.js`),
        proc(105, 100, 'perf', 'record', '-F', '999', '-a', '-g'),
        proc(200, 1, 'node', 'vitest'),
      ],
      want: [
        [100, 'harness'],
        [101, 'harness'],
        [102, 'bridge'],
        [103, 'simulator'],
        [104, 'sink'],
        [105, 'harness'],
      ],
    },
    {
      name: 'the sidecar: the bridge is its own `run` process, the scenario process is harness',
      processes: [
        proc(100, 1, 'node', 'bench/perf-threads.ts'),
        proc(101, 100, 'node', '--import', 'tsx', '/repo/bench/throughput.ts', 'sidecar'),
        proc(102, 101, 'node', `${BUILD}/bench/throughput.js`, 'sidecar'),
        proc(103, 102, 'node', `${BUILD}/bundle/main.js`, 'run'),
        proc(104, 102, 'node', `${BUILD}/bench/ceiling.js`),
      ],
      want: [
        [100, 'harness'],
        [101, 'harness'],
        [102, 'harness'],
        [103, 'bridge'],
        [104, 'ceiling'],
      ],
    },
    {
      name: 'under tsx (--from-source): the scenario runs throughput.ts again',
      processes: [
        proc(100, 1, 'node', 'bench/perf-threads.ts'),
        proc(101, 100, 'node', '--import', 'tsx', '/repo/bench/throughput.ts', 'live'),
        proc(102, 101, 'node', '--import', 'tsx', '/repo/bench/throughput.ts', 'live'),
        proc(103, 102, 'node', '--import', 'tsx', '/repo/src/devkit/simulator/main.ts'),
      ],
      want: [
        [100, 'harness'],
        [101, 'harness'],
        [102, 'bridge'],
        [103, 'simulator'],
      ],
    },
    { name: 'the root gone: nothing', processes: [proc(5, 1, 'node')], want: [] },
  ];
  for (const c of cases)
    it(c.name, () => expect([...classifyProcesses(c.processes, 100)].sort((a, b) => a[0] - b[0])).toEqual(c.want));
});

describe('roleOf', () => {
  const roles = new Map<number, Role>([[7, 'bridge']]);
  const cases: Array<[number, Role]> = [
    [7, 'bridge'],
    [0, 'idle'],
    [8, 'other'],
  ];
  for (const [pid, want] of cases) it(`pid ${pid} → ${want}`, () => expect(roleOf(roles, pid)).toBe(want));
});

describe('perfAccessProblem', () => {
  const cases: Array<[string, number | undefined, number | null, RegExp | null]> = [
    ['root at any level', 0, 4, null],
    ['a user at level 0', 1000, 0, null],
    ['a user at level -1', 1000, -1, null],
    ['a user at level 2: says what to set', 1000, 2, /perf_event_paranoid is 2.*sysctl kernel\.perf_event_paranoid=0/],
    ['no procfs', 1000, null, /cannot read/],
  ];
  for (const [name, uid, paranoid, want] of cases)
    it(name, () => {
      const problem = perfAccessProblem(uid, paranoid);
      if (want === null) expect(problem).toBeNull();
      else expect(problem).toMatch(want);
    });
});
