// Secrets in a `data:` URL's payload (mask_body_secrets): the payload is a body (JSON, a form,
// HTML), decoded from percent-encoding or base64, masked as a body is and encoded as it came; a
// payload with nothing to mask, a binary one and the fragment keep their bytes.
import { describe, expect, it } from 'vitest';
import { defaultMappingOptions, parseMappingOptions } from '../../../src/config/mapping-section.js';
import { maskDataUrl } from '../../../src/mapping/mask-data-url.js';
import { compileNameMatcher } from '../../../src/mapping/name-matcher.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { CTX, envelopeOf } from './helpers.js';

const r = defaultMappingOptions.redaction;
const names = compileNameMatcher([...r.headers, ...r.queryParams]);
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const pct = encodeURIComponent;

describe('maskDataUrl', () => {
  it.each<[string, string, string]>([
    [
      'raw JSON',
      'data:application/json,{"user":"a","password":"SECRET-1"}',
      'data:application/json,{"user":"a","password":"REDACTED"}',
    ],
    [
      'percent-encoded JSON',
      `data:application/json,${pct('{"access_token":"SECRET-2","n":1}')}`,
      `data:application/json,${pct('{"access_token":"REDACTED","n":1}')}`,
    ],
    [
      'base64 JSON',
      `data:application/json;base64,${b64('{"client_secret":"SECRET-3"}')}`,
      `data:application/json;base64,${b64('{"client_secret":"REDACTED"}')}`,
    ],
    [
      'upper-case scheme and base64',
      `DATA:text/plain;charset=utf-8;BASE64,${b64('a=1&token=SECRET-4')}`,
      `DATA:text/plain;charset=utf-8;BASE64,${b64('a=1&token=REDACTED')}`,
    ],
    ['a form, no media type', 'data:,user=alice&password=SECRET-5', 'data:,user=alice&password=REDACTED'],
    [
      'an HTML document',
      `data:text/html,${pct('<input type="password" value="SECRET-6">')}`,
      `data:text/html,${pct('<input type="password" value="REDACTED">')}`,
    ],
    ['the fragment stays outside the payload', 'data:,pass=SECRET-7#top', 'data:,pass=REDACTED#top'],
    [
      'a lone surrogate in an encoded payload',
      `data:,token=SECRET-8%26x=%ED%A0%80`,
      `data:,${pct('token=REDACTED&x=\uFFFD\uFFFD\uFFFD')}`,
    ],
  ])('%s', (_, url, expected) => expect(maskDataUrl(url, names)).toBe(expected));

  it.each<[string, string]>([
    ['nothing secret', 'data:application/json,{"user":"alice","n":1}'],
    ['nothing secret, encoded', `data:text/html,${pct('<p>hello</p>')}`],
    ['an image', `data:image/svg+xml,${pct('<svg><text>password=x</text></svg>')}`],
    [
      'binary base64',
      `data:application/octet-stream;base64,${Buffer.from([0xff, 0xfe, 0x00, 0x80]).toString('base64')}`,
    ],
    ['no comma', 'data:text/plain'],
    ['an empty payload', 'data:text/plain,'],
    ['not a data: URL', 'https://a.example/?x={"password":"kept-by-this-function"}'],
  ])('keeps %s', (_, url) => expect(maskDataUrl(url, names)).toBe(url));
});

describe('data: URLs in records', () => {
  const url = `data:application/json,${pct('{"access_token":"SECRET-9"}')}`;
  const masked = `data:application/json,${pct('{"access_token":"REDACTED"}')}`;

  it.each<[string, string, Record<string, unknown>, (body: Record<string, unknown>) => unknown]>([
    ['a request url', 'network_request', { url, method: 'GET', headers: {} }, (b) => b.url],
    [
      'a request document_url',
      'network_request',
      { url: 'https://a.example/x', document_url: url, method: 'GET' },
      (b) => b.document_url,
    ],
    ['a navigation url', 'page_navigation', { url, frame_id: 'f' }, (b) => b.url],
  ])('%s', (_, type, data, pick) => {
    const record = createMapper(defaultMappingOptions).map(
      envelopeOf(type, type.split('_')[0] === 'page' ? 'page' : 'network', data),
      CTX,
      1,
    )!;
    expect(pick(record.body as Record<string, unknown>)).toBe(masked);
    expect(JSON.stringify(record)).not.toContain('SECRET-');
  });

  it('mask_body_secrets: false leaves the payload', () => {
    const off = createMapper(parseMappingOptions({ redaction: { mask_body_secrets: false } }, 'mapping'));
    const record = off.map(envelopeOf('network_request', 'network', { url, method: 'GET' }), CTX, 1)!;
    expect((record.body as { url: string }).url).toBe(url);
  });
});
