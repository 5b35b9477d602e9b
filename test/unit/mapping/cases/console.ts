// Mapping cases, console_log and console_error: console calls, uncaught exceptions, their stacks
// and locations.
import {
  type MappingCase,
  TRACE,
  DEBUG,
  INFO,
  WARN,
  ERROR,
  ctx,
  PAGE_ATTRS,
  STACK,
  NULL_BLOB,
  NULL_BLOB_STACK,
  LOC,
  c,
} from './kit.js';

export const CONSOLE_CASES: MappingCase[] = [
  c('console_log', 'log level with stack', {
    category: 'console',
    data: { ...ctx, level: 'log', text: 'hi', args: ['hi'], stack_trace: STACK },
    severity: INFO,
    attributes: { ...PAGE_ATTRS, 'browser.console.level': 'log', ...LOC },
  }),
  c('console_log', 'debug', { category: 'console', data: { level: 'debug', text: 'd' }, severity: DEBUG }),
  c('console_log', 'verbose', { category: 'console', data: { level: 'verbose' }, severity: DEBUG }),
  c('console_log', 'trace', { category: 'console', data: { level: 'trace' }, severity: TRACE }),
  c('console_log', 'warning', { category: 'console', data: { level: 'warning' }, severity: WARN }),
  c('console_log', 'assert', { category: 'console', data: { level: 'assert' }, severity: ERROR }),
  c('console_log', 'error routed here anyway', { category: 'console', data: { level: 'error' }, severity: ERROR }),
  c('console_log', 'table', { category: 'console', data: { level: 'table' }, severity: INFO }),
  c('console_log', 'no level', { category: 'console', data: { text: 'x' }, severity: INFO }),
  c('console_error', 'console.error call', {
    category: 'console',
    data: { ...ctx, level: 'error', text: 'bad', args: ['bad'], stack_trace: STACK },
    severity: ERROR,
    attributes: { ...PAGE_ATTRS, 'browser.console.level': 'error', ...LOC },
  }),
  c('console_error', 'uncaught exception', {
    category: 'console',
    data: {
      ...ctx,
      text: 'Uncaught TypeError: x is not a function',
      line: 9,
      column: 14,
      source_url: 'https://shop.example/app.js',
      stack_trace: STACK,
    },
    severity: ERROR,
    attributes: {
      'exception.type': 'TypeError',
      'exception.message': 'x is not a function',
      'exception.stacktrace':
        'Uncaught TypeError: x is not a function\n    at pay (https://shop.example/app.js:10:15)\n    at main (https://shop.example/app.js:41:3)',
      'code.function.name': 'pay',
      'code.file.path': 'https://shop.example/app.js',
      'code.line.number': 10,
      'code.column.number': 15,
    },
  }),
  c('console_error', 'uncaught exception at line 0, column 0 (zero-based: 1:1)', {
    category: 'console',
    data: { text: 'Uncaught Error: boom', line: 0, column: 0, source_url: 'https://shop.example/inline.js' },
    severity: ERROR,
    attributes: {
      'exception.type': 'Error',
      'exception.message': 'boom',
      'code.file.path': 'https://shop.example/inline.js',
      'code.line.number': 1,
      'code.column.number': 1,
    },
  }),
  c('console_error', 'uncaught exception that also carries a level', {
    category: 'console',
    data: {
      level: 'error',
      text: 'Uncaught (in promise) TypeError: x is not a function',
      line: 3,
      column: 7,
      source_url: 'https://shop.example/app.js',
    },
    severity: ERROR,
    attributes: {
      'exception.type': 'TypeError',
      'exception.message': 'x is not a function',
      'code.line.number': 4,
      'code.column.number': 8,
    },
  }),
  ...(
    [
      ['Uncaught Error', 'Error'],
      ['Uncaught (in promise) TypeError', 'TypeError'],
      ['Uncaught DOMException', 'DOMException'],
    ] as const
  ).map(([text, type]) =>
    c('console_error', `uncaught exception with a type and no message: "${text}"`, {
      category: 'console',
      data: { text, line: 0, column: 5, source_url: 'https://shop.example/app.js' },
      severity: ERROR,
      attributes: { 'exception.type': type },
      absent: ['exception.message'],
    }),
  ),
  c('console_error', 'a thrown string is a message, not a type: "Uncaught oops"', {
    category: 'console',
    data: { text: 'Uncaught oops', line: 0, column: 5, source_url: 'https://shop.example/app.js' },
    severity: ERROR,
    attributes: { 'exception.message': 'oops' },
    absent: ['exception.type'],
  }),
  // What Chromium sends as exceptionDetails.text today: the label alone, the error's own type and
  // message being in exceptionDetails.exception, which the service does not copy
  // (test/integration/devkit/chromium-session-shapes.test.ts).
  ...['Uncaught', 'Uncaught (in promise)'].map((text) =>
    c('console_error', `uncaught exception whose text is Chromium's bare label "${text}"`, {
      category: 'console',
      data: { text, line: 0, column: 5, source_url: 'https://shop.example/app.js' },
      severity: ERROR,
      attributes: { 'exception.message': text },
      absent: ['exception.type'],
    }),
  ),
  c('console_error', 'console.error call without level (older or cut event) is no exception', {
    category: 'console',
    data: { text: 'TypeError: shown, not thrown', args: ['TypeError: shown, not thrown'], stack_trace: STACK },
    severity: ERROR,
    attributes: LOC,
    absent: ['exception.type', 'exception.message', 'exception.stacktrace'],
  }),
  // A dedicated worker of a data: document (opaque origin) runs from blob:null/<uuid>, as headless
  // Chromium reports it (test/integration/devkit/chromium-session-shapes.test.ts): the frame's URL is
  // the code's file, and "null" names no server.
  c('console_log', 'a blob:null/ worker of a data: document: its frame is the file, no server', {
    category: 'console',
    data: { level: 'log', text: 'w', args: ['w'], stack_trace: NULL_BLOB_STACK },
    severity: INFO,
    attributes: { 'code.file.path': NULL_BLOB, 'code.line.number': 1, 'code.column.number': 9 },
    absent: ['url.full', 'server.address', 'server.port'],
  }),
  c('console_error', 'uncaught exception in a blob:null/ worker', {
    category: 'console',
    data: { text: 'Uncaught (in promise)', line: 0, column: 33, source_url: NULL_BLOB, stack_trace: NULL_BLOB_STACK },
    severity: ERROR,
    attributes: {
      'exception.message': 'Uncaught (in promise)',
      'exception.stacktrace': `Uncaught (in promise)\n    at ${NULL_BLOB}:1:9`,
      'code.file.path': NULL_BLOB,
      'code.line.number': 1,
      'code.column.number': 34,
    },
    absent: ['server.address', 'server.port'],
  }),
];
