// console_log and console_error, with their call stacks (docs/service-api.md "Event types and categories").
import type { GenResult, GenState } from './context.js';
import { LONG_TEXT, UNICODE_TEXTS, cdpSource, pageContext, pageOrigin } from './context.js';
import { uuid } from './network.js';

const LEVELS = ['log', 'info', 'warning', 'debug', 'dir', 'table', 'trace', 'assert', 'count', 'timeEnd'];
const FUNCTIONS = ['handleClick', 'render', 'fetchData', '', 'onMessage', 'Module.load', 'anonymous'];
const SCRIPTS = ['/static/js/main.8f3a1c.js', '/assets/vendor.js', '/app.bundle.js', '/sw.js'];

interface CallStack {
  callFrames: Array<{ functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number }>;
  description?: string;
  parent?: CallStack;
}

/**
 * A BrowserCallStack as the service sends it: CDP's Runtime.StackTrace unchanged, innermost frame
 * first, zero-based lineNumber/columnNumber. `asyncDepth` > 0 nests async parents (e.g. a
 * Promise.then inside a setTimeout).
 */
export function stackTrace(g: GenState, asyncDepth: number): CallStack {
  const { rng } = g;
  const origin = pageOrigin(g);
  // A data: document's scripts have no URL: Chromium reports their frames with url "".
  const inData = g.page.url.startsWith('data:');
  const frames = Array.from({ length: rng.int(1, 4) }, () => ({
    functionName: rng.pick(FUNCTIONS),
    scriptId: String(rng.int(10, 400)),
    url: inData ? '' : origin + rng.pick(SCRIPTS),
    lineNumber: rng.int(0, 5000),
    columnNumber: rng.int(0, 200),
  }));
  const stack: CallStack = { callFrames: frames };
  if (asyncDepth > 0) {
    stack.parent = { ...stackTrace(g, asyncDepth - 1), description: rng.pick(['Promise.then', 'setTimeout', 'await']) };
  }
  return stack;
}

/**
 * Arguments that are no string nor number, as the service writes them: where CDP sends no value
 * (an object, an array, a function, a Symbol, undefined) it writes the argument's type, never JavaScript's
 * `String()` of it (`[object Object]`). Chromium's Runtime.consoleAPICalled is checked in
 * test/integration/devkit/simulator/chromium-urls.test.ts.
 */
export const VALUELESS_ARGS: readonly string[] = ['object', 'undefined', 'symbol'];

/** Workers' targets, as Chromium types them (and the service copies into source.metadata). */
const WORKER_TYPES = ['worker', 'shared_worker', 'service_worker'];

/**
 * A console_log from one of the page's workers. The service attaches workers too but keeps a page's
 * state (the event context) for pages only, so a worker's event has no `url` and no other context
 * member: only source.metadata says which target it came from. A worker started from a blob: URL has
 * that URL in its frames, a service worker its script's. Checked against Chromium by
 * test/integration/devkit/chromium-session-shapes.test.ts.
 */
function workerConsoleLog(g: GenState): GenResult {
  const { rng } = g;
  const targetType = rng.pick(WORKER_TYPES);
  const origin = pageOrigin(g);
  const url = targetType === 'service_worker' ? origin + '/sw.js' : `blob:${origin}/${uuid(g)}`;
  const text = rng.pick(UNICODE_TEXTS);
  const frame = {
    functionName: rng.pick(FUNCTIONS),
    scriptId: String(rng.int(2, 40)),
    url,
    lineNumber: rng.int(0, 400),
    columnNumber: rng.int(0, 120),
  };
  return {
    data: { level: rng.pick(LEVELS), text, args: [text], stack_trace: { callFrames: [frame] } },
    source: {
      kind: 'cdp',
      event: 'Runtime.consoleAPICalled',
      metadata: {
        cdp_session_id: rng.hex(32).toUpperCase(),
        target_id: rng.hex(32).toUpperCase(),
        target_type: targetType,
      },
    },
  };
}

export function consoleLog(g: GenState): GenResult {
  const { rng } = g;
  // Rarely: most of what a session logs is its pages'.
  if (rng.chance(0.04)) return workerConsoleLog(g);
  const text = rng.pick(UNICODE_TEXTS);
  const data: Record<string, unknown> = {
    ...pageContext(g),
    level: rng.pick(LEVELS),
    text,
    args: [text, String(rng.int(0, 999)), rng.pick(VALUELESS_ARGS)],
  };
  if (rng.chance(0.4)) data.stack_trace = stackTrace(g, rng.chance(0.3) ? 1 : 0);
  let truncated: true | undefined;
  if (rng.chance(0.03)) {
    // Capture rule 4: the first argument was over 8192 bytes.
    data.text = LONG_TEXT;
    data.args = [LONG_TEXT];
    truncated = true;
  }
  return { data, source: cdpSource(g, 'Runtime.consoleAPICalled'), ...(truncated ? { truncated } : {}) };
}

/**
 * exceptionDetails.text of an uncaught exception. Current Chromium writes the label alone
 * (`Uncaught`, `Uncaught (in promise)` for a rejection nobody handled) and keeps the error in
 * exceptionDetails.exception, which the service does not copy: checked by
 * test/integration/devkit/chromium-session-shapes.test.ts. Older browsers wrote the error into the
 * text; a few such texts stay, for the mapper's parsing of them.
 */
export const EXCEPTION_TEXTS: readonly string[] = [
  'Uncaught',
  'Uncaught',
  'Uncaught',
  'Uncaught (in promise)',
  'Uncaught (in promise)',
  "Uncaught TypeError: Cannot read properties of undefined (reading 'id')",
  'Uncaught (in promise) Error: Request failed with status 503',
  'Uncaught RangeError: Maximum call stack size exceeded — 再帰',
];

export function consoleError(g: GenState): GenResult {
  const { rng } = g;
  if (rng.chance(0.5)) {
    // From a console.error call: level, text, args, stack_trace.
    const text = rng.pick(['Failed to load resource', 'Ошибка: неверный ответ сервера', 'TypeError in handler 💥']);
    return {
      data: { ...pageContext(g), level: 'error', text, args: [text, '{"status":500}'], stack_trace: stackTrace(g, 0) },
      source: cdpSource(g, 'Runtime.consoleAPICalled'),
    };
  }
  // From an uncaught exception (Runtime.exceptionThrown): text, line, column, source_url and a
  // stack with async parents; no level. line/column/source_url are exceptionDetails' own position,
  // which is the throwing frame: the stack's first (innermost) one, zero-based like it.
  const stack = stackTrace(g, rng.int(1, 2));
  const top = stack.callFrames[0] as CallStack['callFrames'][number];
  if (rng.chance(0.1)) {
    // Code run by eval() or new Function() has no script URL: Chromium reports its frame with
    // url "" and the exception without a url, which the service copies as source_url "".
    top.functionName = 'eval';
    top.url = '';
  }
  return {
    data: {
      ...pageContext(g),
      text: rng.pick(EXCEPTION_TEXTS),
      line: top.lineNumber,
      column: top.columnNumber,
      source_url: top.url,
      stack_trace: stack,
    },
    source: cdpSource(g, 'Runtime.exceptionThrown'),
  };
}
