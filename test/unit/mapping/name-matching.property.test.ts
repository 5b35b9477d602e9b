// Name lists and path parameters against plain reference implementations, on any input: the
// matcher's native fast paths (`*lit`, `lit*`, `*lit*`) and its memo bound must answer exactly what
// one case-insensitive regular expression answers, and the path-parameter scan that finds `/`,
// `;` and `=` natively must mask exactly what a walk over every character masked.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileNameMatcher, type NameMatcher } from '../../../src/mapping/name-matcher.js';
import { redactPathParams } from '../../../src/mapping/redact-url.js';

const REDACTED = 'REDACTED';

/** What a pattern list means: one anchored, case-insensitive expression, `*` any run of characters. */
function referenceMatcher(patterns: readonly string[]): (name: string) => boolean {
  if (patterns.length === 0) return () => false;
  const escape = (s: string): string => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^(?:${patterns.map((p) => p.split('*').map(escape).join('.*')).join('|')})$`, 'is');
  return (name) => re.test(name);
}

/** The path-parameter rule walked character by character: `;name=value` up to the next `;` or `/`. */
function referencePathParams(path: string, params: NameMatcher): string | null {
  let out: string[] | null = null;
  let last = 0;
  for (let semi = path.indexOf(';'); semi !== -1; semi = path.indexOf(';', semi + 1)) {
    let end = semi + 1;
    let eq = -1;
    for (; end < path.length; end++) {
      const c = path[end];
      if (c === ';' || c === '/') break;
      if (c === '=' && eq === -1) eq = end;
    }
    if (eq !== -1 && eq + 1 < end && params.matches(path.slice(semi + 1, eq)) && path.slice(eq + 1, end) !== REDACTED) {
      (out ??= []).push(path.slice(last, eq + 1), REDACTED);
      last = end;
    }
  }
  if (out === null) return null;
  out.push(path.slice(last));
  return out.join('');
}

const text = (chars: string[], maxLength: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...chars), { maxLength }).map((a) => a.join(''));

describe('compileNameMatcher', () => {
  it('answers what one case-insensitive expression of the patterns answers, short names and long', () => {
    const pattern = text(['a', 'b', 'K', '*', '.', '('], 6);
    // Up to 300 characters: past the memo's bound of 128, so both paths are taken.
    const name = fc.oneof(text(['a', 'A', 'b', 'k', '.', '('], 8), text(['a', 'b', 'K'], 300));
    fc.assert(
      fc.property(fc.array(pattern, { maxLength: 5 }), fc.array(name, { minLength: 1, maxLength: 20 }), (ps, ns) => {
        const m = compileNameMatcher(ps);
        const ref = referenceMatcher(ps);
        // Twice each: the second answer may come from the memo.
        for (const n of [...ns, ...ns]) expect(m.matches(n)).toBe(ref(n));
      }),
      { numRuns: 500 },
    );
  });
});

describe('redactPathParams', () => {
  it('masks what the character walk masks, on any path', () => {
    const params = compileNameMatcher(['sid', '*token', 'ab*']);
    // Built of whole tokens, so that names the list matches, values, `REDACTED` and the separators
    // meet often in every arrangement.
    const path = text([';', ';', '=', '=', '/', 'sid', 'xtoken', 'abc', 'SID', 'v', REDACTED, 'a'], 24);
    fc.assert(
      fc.property(path, (p) => {
        expect(redactPathParams(p, params)).toBe(referencePathParams(p, params));
      }),
      { numRuns: 2000 },
    );
  });

  it('an 8 KB data: URL is one parameter, left as it is', () => {
    const params = compileNameMatcher(['*token']);
    const url = `data:image/png;base64,${Buffer.alloc(6000, 7).toString('base64')}`;
    expect(redactPathParams(url, params)).toBeNull();
    expect(referencePathParams(url, params)).toBeNull();
  });
});
