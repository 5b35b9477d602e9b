// BrowserCallStack (docs/service-api.md "Event types and categories", call stacks) rendered the way browsers print an
// uncaught exception, for exception.stacktrace:
//
//   TypeError: x is not a function
//       at inner (https://shop.example/app.js:3:5)
//       at https://shop.example/app.js:9:1
//       --- setTimeout (async) ---
//       at schedule (https://shop.example/app.js:12:3)
//
// callFrames are CDP's Runtime.StackTrace passed through unchanged by the service (cdpmonitor hands
// `exceptionDetails.stackTrace` and `consoleAPICalled.stackTrace` over as they come), so they are
// innermost first, the order browsers print; the SDK's "outermost first" comment is wrong (the
// service's own Runtime.exceptionThrown test data has the throwing frame first). Line and column
// numbers are zero-based in CDP and printed one-based. Async parents follow after a separator
// naming their `description`, as the DevTools console does.
import { isRecord } from '../util/guards.js';

/** Bounds for hostile or runaway stacks: a stack trace attribute is for people, not for archives. */
const MAX_FRAMES = 100;
const MAX_PARENTS = 16;

export interface SourceLocation {
  functionName?: string;
  url?: string;
  /** One-based. */
  line?: number;
  /** One-based. */
  column?: number;
}

function framesOf(stack: unknown): unknown[] | undefined {
  return isRecord(stack) && Array.isArray(stack.callFrames) ? stack.callFrames : undefined;
}

function locationOf(frame: unknown): SourceLocation | undefined {
  if (!isRecord(frame)) return undefined;
  const loc: SourceLocation = {};
  if (typeof frame.functionName === 'string' && frame.functionName !== '') loc.functionName = frame.functionName;
  if (typeof frame.url === 'string' && frame.url !== '') loc.url = frame.url;
  if (typeof frame.lineNumber === 'number' && Number.isInteger(frame.lineNumber)) loc.line = frame.lineNumber + 1;
  if (typeof frame.columnNumber === 'number' && Number.isInteger(frame.columnNumber))
    loc.column = frame.columnNumber + 1;
  return loc;
}

/** The innermost frame of a call stack (where the console call or throw happened): the first one. */
export function innermostFrame(stack: unknown): SourceLocation | undefined {
  const frames = framesOf(stack);
  if (frames === undefined || frames.length === 0) return undefined;
  return locationOf(frames[0]);
}

function renderFrame(loc: SourceLocation): string {
  let where = loc.url ?? '<anonymous>';
  if (loc.line !== undefined) where += `:${loc.line}`;
  if (loc.line !== undefined && loc.column !== undefined) where += `:${loc.column}`;
  return loc.functionName === undefined ? `    at ${where}` : `    at ${loc.functionName} (${where})`;
}

/** `header` followed by the frames of `stack` and its async parents; undefined when there are no frames. */
export function renderStackTrace(header: string, stack: unknown): string | undefined {
  const lines = [header];
  let frames = 0;
  let current: unknown = stack;
  for (let level = 0; level <= MAX_PARENTS && isRecord(current); level++) {
    const callFrames = framesOf(current) ?? [];
    if (level > 0) {
      const description =
        typeof current.description === 'string' && current.description !== '' ? current.description : 'async';
      lines.push(`    --- ${description} (async) ---`);
    }
    for (const frame of callFrames) {
      const loc = locationOf(frame);
      if (loc === undefined) continue;
      if (frames++ === MAX_FRAMES) {
        lines.push('    ...');
        return lines.join('\n');
      }
      lines.push(renderFrame(loc));
    }
    current = current.parent;
  }
  return frames === 0 ? undefined : lines.join('\n');
}
