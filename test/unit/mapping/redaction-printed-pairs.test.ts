// A cookie list or a form printed as a whole console argument (mask_body_secrets): every cookie
// value masked, as the Cookie header is; a form's secret-named fields masked, as a form body's
// are; prose with `=` in it kept.
import { describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { maskPrintedPairs } from '../../../src/mapping/mask-printed-pairs.js';
import { compileNameMatcher } from '../../../src/mapping/name-matcher.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { CTX, envelopeOf } from './helpers.js';

const r = defaultMappingOptions.redaction;
const names = compileNameMatcher([...r.headers, ...r.queryParams]);

describe('maskPrintedPairs', () => {
  it.each<[string, string, string]>([
    ['document.cookie', 'sid=s3cr3t; theme=dark', 'sid=REDACTED; theme=REDACTED'],
    ['cookies without the space', 'a=1;connect.sid=s%3Aabc;_ga=GA1.2', 'a=REDACTED;connect.sid=REDACTED;_ga=REDACTED'],
    ['a trailing semicolon, an empty value', 'sid=x; empty=;', 'sid=REDACTED; empty=;'],
    ['a form', 'user=alice&password=hunter2&remember=1', 'user=alice&password=REDACTED&remember=1'],
    ['a single secret pair', 'access_token=abc123', 'access_token=REDACTED'],
  ])('%s', (_, text, expected) => expect(maskPrintedPairs(text, names)).toBe(expected));

  it.each<[string, string]>([
    ['a single plain pair', 'retry=3'],
    ['prose with pairs', 'set x = 5; y = 6 for the layout'],
    ['a pair inside a sentence', 'token=abc is the query we sent'],
    ['no =', 'hello; world'],
    ['a form without secrets', 'q=shoes&page=2'],
    ['markup', '<a href="?token=x">'],
  ])('keeps %s', (_, text) => expect(maskPrintedPairs(text, names)).toBe(text));
});

describe('in console records', () => {
  it('masks a cookie list printed as a later argument, and counts it', () => {
    const kinds: string[] = [];
    const mapper = createMapper(defaultMappingOptions, {
      emit: (f) => void (f.f === 'values_redacted' && kinds.push(f.kind)),
    });
    const record = mapper.map(
      envelopeOf('console_log', 'console', { level: 'log', text: 'cookies:', args: ['cookies:', 'sid=s3cr3t; a=b'] }),
      CTX,
      1,
    )!;
    expect(record.body).toMatchObject({ args: ['cookies:', 'sid=REDACTED; a=REDACTED'] });
    expect(kinds).toContain('console_text');
  });
});
