import { describe, expect, it } from 'vitest';
import { createPerfScriptParser, parsePerfScript, type PerfSample } from '../../../bench/perf-script.js';
import { EXCERPT } from './perf-script-excerpt.js';

describe('parsePerfScript', () => {
  it('reads every sample of a real excerpt: thread, process, time, frames innermost first with their objects', () => {
    const samples = parsePerfScript(EXCERPT);
    expect(samples.map((s) => [s.comm, s.pid, s.tid, s.frames.length])).toEqual([
      ['ingest-0', 6901, 7015, 8],
      ['ingest-0', 6901, 7015, 3],
      ['ingest-0', 6901, 7015, 3],
      ['MainThread', 6901, 6901, 5],
      ['MainThread', 6901, 6901, 3],
      ['MainThread', 6901, 6901, 7],
      ['V8Worker', 6901, 6909, 4],
      ['V8Worker', 6901, 6905, 3],
      ['V8Worker', 6901, 6909, 3],
      ['MainThread', 6955, 6955, 2],
      ['ksoftirqd/1', 22, 22, 3],
      ['libuv-worker', 7038, 7055, 4],
      ['swapper', 0, 0, 3],
    ]);
    expect(samples[0]!.time).toBe(75738.231016);
    expect(samples[0]!.frames[0]).toEqual({
      ip: 'c811fb',
      sym: 'v8::internal::JsonParser<unsigned char>::ScanJsonString',
      dso: '/usr/bin/node',
    });
    expect(samples[3]!.frames[0]).toEqual({
      ip: 'ffffffff8136d045',
      sym: 'set_user_sigmask',
      dso: '[kernel.kallsyms]',
    });
    expect(samples[11]!.frames[3]).toEqual({ ip: '75696d6f7268632f', sym: '[unknown]', dso: '[unknown]' });
  });

  const cases: Array<{ name: string; text: string; want: Array<Partial<PerfSample>> }> = [
    { name: 'empty input', text: '', want: [] },
    { name: 'only blank lines and a warning', text: '\n\nWarning: something\n\n', want: [] },
    {
      name: 'a thread name with a space (older Node: "V8 DefaultWorke")',
      text: 'V8 DefaultWorke  17/19  10.000001: \n\t    aa v8::internal::Sweeper::RawSweep (/usr/bin/node)\n',
      want: [
        {
          comm: 'V8 DefaultWorke',
          pid: 17,
          tid: 19,
          frames: [{ ip: 'aa', sym: 'v8::internal::Sweeper::RawSweep', dso: '/usr/bin/node' }],
        },
      ],
    },
    {
      name: 'a symbol with its argument list, without a dso field',
      text: 'MainThread  5/5  1.5: \n\t    b25679 v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace)::{lambda()#2}::operator()\n',
      want: [
        {
          comm: 'MainThread',
          frames: [
            {
              ip: 'b25679',
              sym: 'v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace)::{lambda()#2}::operator()',
            },
          ],
        },
      ],
    },
    {
      name: 'a header with no call chain, then another sample without a blank line between',
      text: 'perf  9/9  2.0: \nMainThread  5/5  2.1: \n\t    1 uv_run (/usr/bin/node)\n',
      want: [
        { comm: 'perf', pid: 9, frames: [] },
        { comm: 'MainThread', pid: 5, frames: [{ ip: '1', sym: 'uv_run', dso: '/usr/bin/node' }] },
      ],
    },
    {
      name: 'extra fields after the time (an event name, a period)',
      text: 'node  7/8  3.25:    1001001 cpu-clock:ppp: \n\t    1 uv_run (/usr/bin/node)\n\n',
      want: [{ comm: 'node', pid: 7, tid: 8, time: 3.25, frames: [{ ip: '1', sym: 'uv_run', dso: '/usr/bin/node' }] }],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const got = parsePerfScript(c.text);
      expect(got).toHaveLength(c.want.length);
      c.want.forEach((w, i) => expect(got[i]).toMatchObject(w));
    });
});

describe('createPerfScriptParser', () => {
  it('hands on each sample once it ends, and the last one at end()', () => {
    const seen: number[] = [];
    const parser = createPerfScriptParser((s) => seen.push(s.tid));
    parser.line('MainThread  5/5  1.0: ');
    parser.line('\t    1 uv_run (/usr/bin/node)');
    expect(seen).toEqual([]);
    parser.line('');
    expect(seen).toEqual([5]);
    parser.line('ingest-0  5/6  1.1: ');
    parser.line('\t    2 Builtins_JSEntry (/usr/bin/node)');
    parser.end();
    expect(seen).toEqual([5, 6]);
  });
});
