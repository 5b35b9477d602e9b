// What a frame of a `perf script` call chain is, and what a whole sample was spent on.
//
// With `--perf-basic-prof` V8 writes /tmp/perf-<pid>.map, a name for every piece of code it generates,
// and perf resolves JIT frames through it:
//   JS:*'decode file:///…/.bench-build/run-123/src/stream/frame-decoder.js:41:10
//      │└ ' the code is specialised to one closure's context (V8's CodeKindToMarker)
//      └ tier: * TurboFan, + Maglev, ^ Sparkplug, ~ the interpreter
//   Builtin:…, BytecodeHandler:…, Stub:…, RegExp:…   more code V8 generated at run time
// Older V8 wrote LazyCompile:/Function: for JS functions; they are read the same way. V8's builtins
// are mostly embedded in the node binary, where perf names them from its symbols (Builtins_JsonParse,
// Builtins_InterpreterEntryTrampoline). Everything else is native: the binary's C++ (V8's runtime,
// collector and compilers, node's bindings), libc, or the kernel.

/** What a sample's CPU went to (categorise: GC_RULES, then CHAIN_RULES, else native). */
export const CATEGORIES = [
  'javascript',
  'json-parse',
  'gc-scavenge',
  'gc-marking',
  'gc-sweeping',
  'gc-other',
  'jit',
  'kernel',
  'native',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Short column titles of the text report. */
export const CATEGORY_TITLES: { [K in Category]: string } = {
  javascript: 'JS',
  'json-parse': 'JSON.parse',
  'gc-scavenge': 'scavenge',
  'gc-marking': 'marking',
  'gc-sweeping': 'sweeping',
  'gc-other': 'GC other',
  jit: 'JIT',
  kernel: 'kernel',
  native: 'native',
};

export interface JsFunction {
  /** The function's name; "(anonymous)" when V8 has none. */
  name: string;
  /** Where it is: a repository path (src/…, bench/…), node_modules/…, node:…, or as V8 wrote it. */
  place: string;
  /** Its line in that file (the compiled file's line where the benchmark ran compiled code). */
  line: number | null;
}

const JS_FRAME = /^(?:JS|LazyCompile|Function|Script|Eval):(?:[*+^~]'?)?(.*)$/;
const V8_CODE = /^(?:Builtins?_|Builtin:|BytecodeHandler:|Stub:|RegExp:|Handler:)/;
const LOCATION = /^(.*?)(?::(\d+))?(?::(\d+))?$/;

/** The JS function a frame runs, or null when the frame is not a JS function's code. */
export function jsFunction(sym: string): JsFunction | null {
  const m = JS_FRAME.exec(sym);
  if (!m) return null;
  const rest = m[1]!;
  // "name location": the location is the last word (a path has no spaces here; a name may: "get size").
  const space = rest.lastIndexOf(' ');
  const name = space < 0 ? rest : rest.slice(0, space);
  const location = space < 0 ? '' : rest.slice(space + 1);
  const where = LOCATION.exec(location)!;
  return {
    name: name === '' ? '(anonymous)' : name,
    place: sourcePlace(where[1]!),
    line: where[2] !== undefined ? Number(where[2]) : null,
  };
}

/** "name place:line", the key and the label of a JS function in the report. */
export function jsLabel(fn: JsFunction): string {
  return `${fn.name} ${fn.place}${fn.line !== null ? `:${fn.line}` : ''}`.trim();
}

/**
 * A script's URL as a path a reader of this repository finds: the benchmark's compiled copy
 * (.bench-build/run-<pid>/src/…) and any checkout's src/, bench/, test/, tools/ become repository paths.
 */
export function sourcePlace(url: string): string {
  const path = url.startsWith('file://') ? url.slice('file://'.length) : url;
  const compiled = /\/\.bench-build\/run-\d+\/(.*)$/.exec(path);
  if (compiled) return compiled[1]!;
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) return path.slice(modules + 1);
  const tree = /\/((?:src|bench|test|tools)\/.*)$/.exec(path);
  return tree ? tree[1]! : path;
}

/** Whether a frame is the kernel's: its object, or an address in the kernel's half. */
export function isKernelFrame(ip: string, dso?: string): boolean {
  if (dso !== undefined) return dso.startsWith('[kernel');
  return ip.length === 16 && ip.startsWith('ffff');
}

/**
 * A C++ symbol without its template arguments and its argument list:
 * `v8::internal::JsonParser<unsigned char>::ScanJsonString(int)` → `v8::internal::JsonParser::ScanJsonString`.
 * Other symbols come back as they are, but for the argument list.
 */
export function cppName(sym: string): string {
  const s = sym.replaceAll('(anonymous namespace)', '{anon}');
  let out = '';
  let depth = 0;
  for (const c of s) {
    if (c === '<') depth++;
    else if (c === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0) {
      if (c === '(') break;
      out += c;
    }
  }
  return out.trim();
}

/** A frame's symbol for a report: JS as jsLabel, C++ as cppName, "[unknown]" kept. */
export function frameLabel(sym: string): string {
  const fn = jsFunction(sym);
  return fn ? jsLabel(fn) : cppName(sym);
}

type Frame = { ip: string; sym: string; dso?: string };

/** The first name after V8's namespace (a class, or a nested namespace such as maglev), else null. */
function v8Member(name: string): string | null {
  const m = /^(?:v8::internal::(?:\{anon\}::)?|cppgc::internal::|heap::base::)(\w+)/.exec(name);
  return m ? m[1]! : null;
}

/**
 * The collector's phases by the class a frame's code belongs to, read innermost frame first and the
 * rules in order at each frame, so the innermost phase names the sample (a scavenge inside a full
 * collection is a scavenge; MinorMarkSweep is the young generation's). An allocation that ends in a
 * collection counts as the collection. The compilers' own classes (maglev::DeadNodeSweepingProcessor)
 * are in namespaces of their own and never match.
 */
export const GC_RULES: Array<{ category: Category; member: RegExp }> = [
  { category: 'gc-scavenge', member: /^(?:Scaveng|MinorMarkSweep|MinorMS|YoungGeneration)/ },
  { category: 'gc-sweeping', member: /Sweep/ },
  { category: 'gc-marking', member: /Mark/ },
  { category: 'gc-other', member: /^(?:GCTracer|Evacuat|FullEvacuator|MemoryReducer|PointersUpdating|Stack$)/ },
];
const HEAP_COLLECTS = /^v8::internal::Heap::(?:CollectGarbage|CollectAllGarbage|PerformGarbageCollection)/;

const JIT =
  /^v8::internal::(?:(?:compiler|maglev|baseline|turboshaft)::|(?:Compiler|OptimizedCompilationJob|OptimizingCompileDispatcher|Parser|ParserBase|PreParser|interpreter::BytecodeGenerator|UnoptimizedCompilationJob)\b)/;
const JSON_PARSE =
  /^(?:Builtins_JsonParse|Builtin:JsonParse|v8::internal::(?:JsonParser|JsonParseInternalizer|Builtin_JsonParse)\b)/;

interface SymbolFacts {
  gc: Category | null;
  jit: boolean;
  json: boolean;
  js: boolean;
}

// Symbols repeat in every sample: each is read once. Bounded, for a long recording of many processes.
const facts = new Map<string, SymbolFacts>();

function factsOf(sym: string): SymbolFacts {
  let f = facts.get(sym);
  if (f) return f;
  const name = cppName(sym);
  const member = v8Member(name);
  const gc = member === null ? undefined : GC_RULES.find((r) => r.member.test(member));
  f = {
    gc: gc ? gc.category : HEAP_COLLECTS.test(name) ? 'gc-other' : null,
    jit: JIT.test(name),
    json: JSON_PARSE.test(name),
    js: JS_FRAME.test(sym) || V8_CODE.test(sym),
  };
  if (facts.size > 200_000) facts.clear();
  facts.set(sym, f);
  return f;
}

/**
 * After the collector, in order, the first match wins: the compilers anywhere in the chain; JSON.parse
 * anywhere (the builtin, the C++ parser under it, its string internalising), so a JSON.parse inside a
 * JS function counts as JSON.parse; then the innermost frame: the kernel's, or JavaScript (a JS
 * function or V8's generated code). What is left is native: V8's runtime, node's bindings (SQLite,
 * zlib, the HTTP parser), libc, and frames perf could not name.
 */
export const CHAIN_RULES: Array<{ category: Category; scope: 'any' | 'leaf'; matches: (f: Frame) => boolean }> = [
  { category: 'jit', scope: 'any', matches: (f) => factsOf(f.sym).jit },
  { category: 'json-parse', scope: 'any', matches: (f) => factsOf(f.sym).json },
  { category: 'kernel', scope: 'leaf', matches: (f) => isKernelFrame(f.ip, f.dso) },
  { category: 'javascript', scope: 'leaf', matches: (f) => factsOf(f.sym).js },
];

/** What a sample (a call chain, innermost first) was spent on. */
export function categorise(frames: readonly Frame[]): Category {
  for (const f of frames) {
    const gc = factsOf(f.sym).gc;
    if (gc) return gc;
  }
  for (const rule of CHAIN_RULES) {
    const leaf = frames[0];
    const hit = rule.scope === 'leaf' ? leaf !== undefined && rule.matches(leaf) : frames.some((f) => rule.matches(f));
    if (hit) return rule.category;
  }
  return 'native';
}
