import { describe, expect, it } from 'vitest';
import {
  categorise,
  cppName,
  frameLabel,
  jsFunction,
  sourcePlace,
  type Category,
  type JsFunction,
} from '../../../bench/perf-frames.js';
import { parsePerfScript } from '../../../bench/perf-script.js';
import { EXCERPT } from './perf-script-excerpt.js';

const BUILD = 'file:///work/wt/perftool/.bench-build/run-6250';

describe('jsFunction', () => {
  const cases: Array<[string, JsFunction | null]> = [
    [
      `JS:*feed ${BUILD}/src/upstream/http-response-parser.js:203:13`,
      { name: 'feed', place: 'src/upstream/http-response-parser.js', line: 203 },
    ],
    [
      `JS:*'writeKeyValue ${BUILD}/src/wire/encode-record.js:26:23`,
      { name: 'writeKeyValue', place: 'src/wire/encode-record.js', line: 26 },
    ],
    [
      `JS:+'push ${BUILD}/src/stream/sequenced-stream.js:52:9`,
      { name: 'push', place: 'src/stream/sequenced-stream.js', line: 52 },
    ],
    [
      `JS:+deliver ${BUILD}/src/stream/connection-reader.js:28:21`,
      { name: 'deliver', place: 'src/stream/connection-reader.js', line: 28 },
    ],
    [
      `JS:^onData ${BUILD}/src/stream/connection-reader.js:87:24`,
      { name: 'onData', place: 'src/stream/connection-reader.js', line: 87 },
    ],
    // Interpreted (with --interpreted-frames-native-stack), from a tsx run and from the compiled copy.
    ['JS:~map file:///work/main/src/mapping/mapper.ts:39:3', { name: 'map', place: 'src/mapping/mapper.ts', line: 39 }],
    [
      `JS:~monitorReconnectFailed ${BUILD}/src/devkit/simulator/events/monitor.js:38:39`,
      { name: 'monitorReconnectFailed', place: 'src/devkit/simulator/events/monitor.js', line: 38 },
    ],
    ["JS:+' node:internal/validators:98:3", { name: '(anonymous)', place: 'node:internal/validators', line: 98 }],
    [
      `JS:^ ${BUILD}/src/ingest/worker-group.js:165:34`,
      { name: '(anonymous)', place: 'src/ingest/worker-group.js', line: 165 },
    ],
    [
      'JS:*get size file:///r/node_modules/pino/lib/tools.js:12:1',
      { name: 'get size', place: 'node_modules/pino/lib/tools.js', line: 12 },
    ],
    ['LazyCompile:*emit node:events:489:44', { name: 'emit', place: 'node:events', line: 489 }],
    ['JS:*noLocation', { name: 'noLocation', place: '', line: null }],
    ['Builtins_JsonParse', null],
    ['Builtin:JsonParse', null],
    ['v8::internal::JsonParser<unsigned char>::ParseJson', null],
    ['[unknown]', null],
  ];
  for (const [sym, want] of cases) it(sym, () => expect(jsFunction(sym)).toEqual(want));
});

describe('sourcePlace', () => {
  const cases: Array<[string, string]> = [
    [`${BUILD}/src/wire/encode-record.js`, 'src/wire/encode-record.js'],
    [`${BUILD}/bench/sink.js`, 'bench/sink.js'],
    ['file:///work/main/src/mapping/mapper.ts', 'src/mapping/mapper.ts'],
    ['file:///work/main/node_modules/pino/lib/proto.js', 'node_modules/pino/lib/proto.js'],
    ['node:internal/streams/readable', 'node:internal/streams/readable'],
    ['/opt/elsewhere/app.js', '/opt/elsewhere/app.js'],
  ];
  for (const [url, want] of cases) it(`${url} → ${want}`, () => expect(sourcePlace(url)).toBe(want));
});

describe('cppName and frameLabel', () => {
  const cases: Array<[string, string]> = [
    ['v8::internal::JsonParser<unsigned char>::ScanJsonString', 'v8::internal::JsonParser::ScanJsonString'],
    [
      'v8::internal::MarkCompactCollector::ProcessMarkingWorklist<(v8::internal::MarkCompactCollector::MarkingWorklistProcessingMode)0>',
      'v8::internal::MarkCompactCollector::ProcessMarkingWorklist',
    ],
    [
      'v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace)::{lambda()#2}::operator()',
      'v8::internal::Heap::CollectGarbage',
    ],
    ['node::(anonymous namespace)::PlatformWorkerThread', 'node::{anon}::PlatformWorkerThread'],
    ['_copy_to_iter', '_copy_to_iter'],
    ['[unknown]', '[unknown]'],
  ];
  for (const [sym, want] of cases) it(`${sym} → ${want}`, () => expect(cppName(sym)).toBe(want));
  it('labels a JS frame by name, repository path and line', () =>
    expect(frameLabel(`JS:*'writeKeyValue ${BUILD}/src/wire/encode-record.js:26:23`)).toBe(
      'writeKeyValue src/wire/encode-record.js:26',
    ));
});

describe('categorise', () => {
  const samples = parsePerfScript(EXCERPT);
  // The excerpt's samples in order, with what each was spent on and why.
  const want: Array<[Category, string]> = [
    ['json-parse', 'the C++ JSON parser under Builtin_JsonParse inside a JS function counts as JSON.parse'],
    ['javascript', 'a JS function innermost'],
    ['javascript', 'an embedded builtin innermost (Builtins_FindOrderedHashMapEntry, a Map lookup)'],
    ['kernel', 'a syscall under libc: the innermost frame is the kernel'],
    ['javascript', 'an anonymous node-internal function innermost'],
    ['gc-scavenge', 'a scavenge on the main thread, inside Heap::CollectGarbage'],
    ['gc-marking', 'concurrent marking on a helper thread'],
    ['gc-sweeping', 'sweeping on a helper thread'],
    ['jit', 'a Maglev compile, though its classes are named …Sweeping… and …Marking…'],
    ['javascript', "the simulator's JS"],
    ['kernel', 'a kernel-only sample (TCP receive in ksoftirqd)'],
    ['kernel', 'a libuv thread in a syscall'],
    ['kernel', 'the idle task'],
  ];
  it('has a case for every sample of the excerpt', () => expect(samples).toHaveLength(want.length));
  want.forEach(([category, why], i) =>
    it(`${category}: ${why}`, () => expect(categorise(samples[i]!.frames)).toBe(category)),
  );

  const synthetic: Array<[string, string[], Category]> = [
    ['no frames at all', [], 'native'],
    ['an unknown native frame', ['[unknown]'], 'native'],
    [
      'a runtime function called from JS',
      ['v8::internal::Runtime_SetKeyedProperty', 'JS:*set file:///r/src/a.js:1:1'],
      'native',
    ],
    ['an embedded JSON.parse builtin', ['Builtins_JsonParse', 'JS:*parse file:///r/src/a.js:1:1'], 'json-parse'],
    [
      'JSON.parse that allocates into a scavenge: the collection',
      [
        'v8::internal::Scavenger::ScavengePage',
        'v8::internal::Heap::CollectGarbage',
        'v8::internal::JsonParser<unsigned char>::ParseJson',
      ],
      'gc-scavenge',
    ],
    [
      'a full collection started from an allocation',
      ['v8::internal::Heap::CollectGarbage', 'v8::internal::Factory::NewFixedArray'],
      'gc-other',
    ],
    [
      'the marking barrier on a JS store',
      ['v8::internal::MarkingBarrier::MarkValue', 'JS:*set file:///r/src/a.js:1:1'],
      'gc-marking',
    ],
    [
      'a TurboFan compile on a helper',
      ['v8::internal::compiler::PipelineImpl::Run', 'v8::platform::DefaultJobWorker::Run'],
      'jit',
    ],
    [
      'JSON.stringify is JavaScript-side native, not JSON.parse',
      ['v8::internal::JsonStringifier::Serialize_', 'JS:*stringify file:///r/src/a.js:1:1'],
      'native',
    ],
  ];
  for (const [name, syms, category] of synthetic)
    it(`${category}: ${name}`, () => expect(categorise(syms.map((sym) => ({ ip: '1', sym })))).toBe(category));
});
