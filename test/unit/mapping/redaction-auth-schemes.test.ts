// Credentials after `Bearer` and `Basic` in free text: masked wherever a string holds them (console
// text, error texts, text bodies), counted as `auth_credential`; prose that only names a scheme
// stays, and redaction switched off leaves them.
import { describe, expect, it } from 'vitest';
import { defaultMappingOptions, parseMappingOptions } from '../../../src/config/mapping-section.js';
import { maskAuthSchemes } from '../../../src/mapping/mask-auth-schemes.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import { CTX, envelopeOf } from './helpers.js';

const basic = (pair: string): string => Buffer.from(pair).toString('base64');

describe('maskAuthSchemes', () => {
  it.each<[string, string, string]>([
    ['a header line', 'Authorization: Bearer abc123DEF', 'Authorization: Bearer REDACTED'],
    [
      'lower case, in a curl line',
      'curl -H "authorization: bearer sk_live_4eC39H" https://a',
      'curl -H "authorization: bearer REDACTED" https://a',
    ],
    ['upper case', 'BEARER gho_16C7e42F292c6912E7710c838347Ae178B4a', 'BEARER REDACTED'],
    ['letters only, long', 'Bearer abcdefghijklmnopqrstuvwxyz', 'Bearer REDACTED'],
    ['a full stop after it', 'sent Bearer t0k3n-value.', 'sent Bearer REDACTED.'],
    ['two of them', 'Bearer one1two2three3 then Bearer four4five5six6', 'Bearer REDACTED then Bearer REDACTED'],
    ['Basic user:password', `Authorization: Basic ${basic('alice:s3cr3t-pw')}`, 'Authorization: Basic REDACTED'],
    ['Basic with padding', `basic ${basic('bob:pw12')}`, 'basic REDACTED'],
    ['in JSON text', `{"h":"Bearer 9f8e7d6c5b4a"}`, `{"h":"Bearer REDACTED"}`],
    // The shortest text that can hold one, and a tab as its only blank (the blank is searched first).
    ['the shortest', 'Basic ' + basic('ab:cd'), 'Basic REDACTED'],
    ['a tab, no space', 'Bearer\tabc123DEF', 'Bearer\tREDACTED'],
  ])('%s', (_, text, expected) => expect(maskAuthSchemes(text)).toBe(expected));

  it.each<[string, string]>([
    ['a word after Bearer', 'Bearer token missing'],
    ['a long word after Bearer', 'Bearer authentication failed'],
    ['a short value', 'Bearer null, Bearer 1234567'],
    ['Basic prose', 'Basic auth required; basic authentication is off'],
    ['Basic base64 without a colon', `Basic ${basic('no-colon-here')}`],
    ['Basic of binary', `Basic ${Buffer.from([0xff, 0x3a, 0xfe, 0x80, 0x81, 0x82]).toString('base64')}`],
    ['already masked', 'Bearer REDACTED'],
    ['inside a word', 'Cupbearer x1y2z3w4v5'],
    ['no scheme', 'token abc123DEF'],
  ])('keeps %s', (_, text) => expect(maskAuthSchemes(text)).toBe(text));
});

describe('in records', () => {
  it.each<[string, string, string, Record<string, unknown>, string]>([
    [
      'console text and args',
      'console_log',
      'console',
      { level: 'log', text: 'with Bearer abc123DEF', args: ['with Bearer abc123DEF'] },
      'with Bearer REDACTED',
    ],
    [
      'an uncaught exception',
      'console_error',
      'console',
      { text: 'Uncaught Error: 401 for Bearer abc123DEF', line: 1, column: 1 },
      'Uncaught Error: 401 for Bearer REDACTED',
    ],
    [
      'a text/plain request body',
      'network_request',
      'network',
      { url: 'https://a.example/', method: 'POST', post_data: 'Authorization: Bearer abc123DEF' },
      'Authorization: Bearer REDACTED',
    ],
  ])('%s', (_, type, category, data, expected) => {
    const facts: Fact[] = [];
    const record = createMapper(defaultMappingOptions, { emit: (f) => facts.push(f) }).map(
      envelopeOf(type, category, data),
      CTX,
      1,
    )!;
    const text = JSON.stringify(record);
    expect(text).not.toContain('abc123DEF');
    expect(text).toContain(expected);
    expect(facts).toContainEqual({ f: 'values_redacted', type, kind: 'auth_credential', count: 1 });
  });

  it('redaction off leaves them', () => {
    const off = createMapper(parseMappingOptions({ redaction: { enabled: false } }, 'mapping'));
    const record = off.map(envelopeOf('console_log', 'console', { level: 'log', text: 'Bearer abc123DEF' }), CTX, 1)!;
    expect(JSON.stringify(record)).toContain('Bearer abc123DEF');
  });
});
