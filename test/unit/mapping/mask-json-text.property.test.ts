// The JSON text scanner on any document, serialized documents inside strings included: valid JSON
// stays valid JSON, no value under a secret-named member survives at any nesting level, and what is
// not secret parses back as it was.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskJsonText } from '../../../src/mapping/mask-json-text.js';
import { compileNameMatcher } from '../../../src/mapping/name-matcher.js';

const names = compileNameMatcher(['password', 'token']);

/** JSON documents whose strings are sometimes serialized documents themselves. */
const doc = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.constant(null),
    fc.constant('SECRET'),
    tie('value').map((v) => JSON.stringify(v)),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('password', 'token', 'a', 'b', 'x\\"token'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** The document with every secret-named member's value masked, serialized documents followed 4 levels down. */
function expected(v: unknown, level: number): unknown {
  if (typeof v === 'string') {
    if (level >= 4 || !/^[\s]*[{[]/.test(v)) return v;
    try {
      return JSON.stringify(expected(JSON.parse(v), level + 1));
    } catch {
      return v;
    }
  }
  if (Array.isArray(v)) return v.map((x) => expected(x, level));
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(
      Object.entries(v).map(([k, x]) => [k, names.matches(k) && x !== null ? 'REDACTED' : expected(x, level)]),
    );
  }
  return v;
}

describe('maskJsonText on any document', () => {
  it('keeps valid JSON valid and masks every secret-named value at every nesting level', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), doc, { maxKeys: 4 }), (v) => {
        const text = JSON.stringify(v);
        const masked = maskJsonText(text, names) ?? text;
        const parsed: unknown = JSON.parse(masked);
        // Re-encoded strings may change escapes, so compare through the decoded values.
        const norm = (x: unknown, level: number): unknown => {
          if (typeof x === 'string' && level < 4 && /^[\s]*[{[]/.test(x)) {
            try {
              return { nested: norm(JSON.parse(x), level + 1) };
            } catch {
              return x;
            }
          }
          if (Array.isArray(x)) return x.map((y) => norm(y, level));
          if (typeof x === 'object' && x !== null) {
            return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, norm(y, level)]));
          }
          return x;
        };
        expect(norm(parsed, 0)).toEqual(norm(expected(v, 0), 0));
      }),
      { numRuns: 300 },
    );
  });
});
