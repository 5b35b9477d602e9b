// exception.stacktrace rendering (docs/mapping.md "exception.stacktrace").
import { describe, expect, it } from 'vitest';
import { innermostFrame, renderStackTrace } from '../../../src/mapping/stack-trace.js';

const frame = (functionName: string, lineNumber: number, columnNumber: number, url = 'https://a.example/app.js') => ({
  functionName,
  scriptId: '1',
  url,
  lineNumber,
  columnNumber,
});

describe('stack traces', () => {
  it('innermost first, one-based, anonymous functions, async parents', () => {
    const stack = {
      callFrames: [frame('', 2, 4), frame('main', 30, 0)],
      parent: {
        description: 'setTimeout',
        callFrames: [frame('schedule', 11, 2)],
        parent: { callFrames: [frame('boot', 0, 0, '')] },
      },
    };
    expect(renderStackTrace('TypeError: boom', stack)).toBe(
      [
        'TypeError: boom',
        '    at https://a.example/app.js:3:5',
        '    at main (https://a.example/app.js:31:1)',
        '    --- setTimeout (async) ---',
        '    at schedule (https://a.example/app.js:12:3)',
        '    --- async (async) ---',
        '    at boot (<anonymous>:1:1)',
      ].join('\n'),
    );
  });
  it('no frames, malformed input → undefined', () => {
    expect(renderStackTrace('x', undefined)).toBeUndefined();
    expect(renderStackTrace('x', { callFrames: [] })).toBeUndefined();
    expect(renderStackTrace('x', { callFrames: 'no' })).toBeUndefined();
    expect(renderStackTrace('x', { callFrames: [null, 3] })).toBeUndefined();
  });
  it('is bounded', () => {
    const many = { callFrames: Array.from({ length: 500 }, (_, i) => frame(`f${i}`, i, 0)) };
    const lines = renderStackTrace('E', many)?.split('\n') ?? [];
    expect(lines.length).toBe(102);
    expect(lines.at(-1)).toBe('    ...');
  });
  it('innermost frame is the first call frame (CDP order, as the service sends it)', () => {
    expect(innermostFrame({ callFrames: [frame('inner', 1, 1), frame('outer', 9, 0)] })).toEqual({
      functionName: 'inner',
      url: 'https://a.example/app.js',
      line: 2,
      column: 2,
    });
    expect(innermostFrame({ callFrames: [] })).toBeUndefined();
  });
});
