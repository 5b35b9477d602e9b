// Secrets in fields the key-name rules missed (issue: hash-routed queries, metadata URLs, URLs in
// arrays, path parameters, secret-named keys inside request and response bodies). Table-driven:
// each row is what the service sends and what must reach the record.
import { describe, expect, it } from 'vitest';
import { compileNameMatcher } from '../../../src/mapping/name-matcher.js';
import { defaultMappingOptions, parseMappingOptions } from '../../../src/config/mapping-section.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { maskBodySecrets } from '../../../src/mapping/body-secrets.js';
import { createUrlRedactor } from '../../../src/mapping/redact-url.js';
import { isUrlKey, looksLikeUrl } from '../../../src/mapping/url-shape.js';
import { CTX, envelopeOf } from './helpers.js';

const d = defaultMappingOptions.redaction;
const urls = createUrlRedactor(compileNameMatcher(d.queryParams), true);
const bodyNames = compileNameMatcher([...d.headers, ...d.queryParams]);

describe('URLs: hash-routed queries, nested URLs, path parameters', () => {
  it.each([
    ['https://app.example.com/#/verify?code=123456', 'https://app.example.com/#/verify?code=REDACTED'],
    ['https://app.example.com/#!/reset?token=t&x=1', 'https://app.example.com/#!/reset?token=REDACTED&x=1'],
    [
      'https://app.example.com/p?next=https://b.example/cb?token=t2',
      'https://app.example.com/p?next=https://b.example/cb?token=REDACTED',
    ],
    ['https://shop.example/cart;jsessionid=ABCDEF0123', 'https://shop.example/cart;jsessionid=REDACTED'],
    ['https://shop.example/cart;JSESSIONID=ABC/item?x=1', 'https://shop.example/cart;JSESSIONID=REDACTED/item?x=1'],
    ['https://shop.example/a;v=2/b;phpsessid=zz', 'https://shop.example/a;v=2/b;phpsessid=REDACTED'],
    ['https://shop.example/a?x=1;sid=s9', 'https://shop.example/a?x=1;sid=REDACTED'],
    ['https://shop.example/a;version=3', 'https://shop.example/a;version=3'],
    ['https://shop.example/#/home', 'https://shop.example/#/home'],
    // Several parameters in one segment, an empty one, one without a value, `=` only in a later one.
    ['https://s.example/a;;sid=1;v=2;token=t/b', 'https://s.example/a;;sid=REDACTED;v=2;token=REDACTED/b'],
    ['https://s.example/a;token/b=1;c=2', 'https://s.example/a;token/b=1;c=2'],
    ['https://s.example/a;token=/b', 'https://s.example/a;token=/b'],
    // A data: URL's media-type parameters are no secrets, its payload is not touched.
    ['data:text/plain;charset=utf-8,token=abc', 'data:text/plain;charset=utf-8,token=abc'],
    ['data:image/png;base64,iVBORw0KGgo/AAAA+bb==', 'data:image/png;base64,iVBORw0KGgo/AAAA+bb=='],
    // JSON in a parameter (a GraphQL GET's variables, Apollo's persisted queries): its secret-named
    // members are masked and the value encoded again; without one it stays byte for byte.
    [
      `https://a.example/graphql?query=q&variables=${encodeURIComponent('{"input":{"password":"pw"},"first":10}')}&x=1`,
      `https://a.example/graphql?query=q&variables=${encodeURIComponent('{"input":{"password":"REDACTED"},"first":10}')}&x=1`,
    ],
    [
      'https://a.example/graphql?variables={"token":"t","id":7}',
      `https://a.example/graphql?variables=${encodeURIComponent('{"token":"REDACTED","id":7}')}`,
    ],
    [
      'https://a.example/graphql?variables=%7B%22first%22%3A10%7D',
      'https://a.example/graphql?variables=%7B%22first%22%3A10%7D',
    ],
    ['https://a.example/s?q=%7Bnot%20json%7D', 'https://a.example/s?q=%7Bnot%20json%7D'],
    // A `query` parameter holding JSON, not GraphQL: masked as JSON.
    [
      'https://api.example/search?query=%7B%22token%22%3A%22SECRET%22%7D',
      `https://api.example/search?query=${encodeURIComponent('{"token":"REDACTED"}')}`,
    ],
    // One bad escape or a lone surrogate beside the secret: decoded leniently, masked all the same.
    [
      'https://a.example/graphql?variables=%7B%22token%22%3A%22SECRET%22%2C%22q%22%3A%22%FF%22%7D',
      `https://a.example/graphql?variables=${encodeURIComponent('{"token":"REDACTED","q":"\uFFFD"}')}`,
    ],
    [
      'https://a.example/graphql?variables=%7B%22token%22%3A%22SECRET%22%2C%22q%22%3A%22%E0%A4%A%22%7D',
      `https://a.example/graphql?variables=${encodeURIComponent('{"token":"REDACTED","q":"\uFFFD%A"}')}`,
    ],
    [
      'https://a.example/graphql?variables={"token":"SECRET","q":"\ud800"}',
      `https://a.example/graphql?variables=${encodeURIComponent('{"token":"REDACTED","q":"\uFFFD"}')}`,
    ],
    [
      'https://a.example/graphql?query=mutation{login(password:"SECRET",x:"\ud800")}',
      `https://a.example/graphql?query=${encodeURIComponent('mutation{login(password:"REDACTED",x:"\uFFFD")}')}`,
    ],
    [
      'https://a.example/graphql?query=mutation%7Blogin(password%3A%22SECRET%22%2Cx%3A%22%FF%22)%7D',
      `https://a.example/graphql?query=${encodeURIComponent('mutation{login(password:"REDACTED",x:"\uFFFD")}')}`,
    ],
  ])('%s', (input, output) => expect(urls.redact(input)).toBe(output));

  it('unchanged URLs come back as the very same string', () => {
    const u = 'https://shop.example/a;v=2/b#/x?page=2';
    expect(urls.redact(u)).toBe(u);
  });

  it.each([
    ['https://a.example/', true],
    ['wss://h/devtools', true],
    ['chrome-extension://abc/x', true],
    ['http:/x', false],
    ['/path?token=1', false],
    ['token=abc', false],
    ['', false],
    ['a', false],
    ['1http://x', false],
  ])('looksLikeUrl(%j) = %s', (s, expected) => expect(looksLikeUrl(s)).toBe(expected));

  it.each([
    ['url', true],
    ['urls', true],
    ['redirect_url', true],
    ['redirect_urls', true],
    ['documentUrl', true],
    ['documentUrls', true],
    ['_url', true],
    ['Url', true],
    ['URL', false],
    ['curl', false],
    ['urlx', false],
    ['headers', false],
    ['level', false],
    ['frame_id', false],
    ['s', false],
    ['l', false],
    ['', false],
  ])('isUrlKey(%j) = %s', (key, expected) => expect(isUrlKey(key)).toBe(expected));
});

describe('the record: metadata URLs, arrays of URLs, bodies', () => {
  const mapper = createMapper(defaultMappingOptions);
  const map = (type: string, data: Record<string, unknown>, source?: Record<string, unknown>) => {
    const env = envelopeOf(type, 'network', data);
    if (source) env.event.source = { kind: 'cdp', ...source };
    return mapper.map(env, CTX, 1)!;
  };

  it.each<[string, Record<string, unknown>, string, string]>([
    [
      'a DevTools URL in metadata',
      { metadata: { ws: 'wss://proxy.example/devtools/browser/abc?jwt=SECRET-JWT' } },
      'browser.event.source.metadata.ws',
      'wss://proxy.example/devtools/browser/abc?jwt=REDACTED',
    ],
    [
      'a relative URL under a URL-named metadata key',
      { metadata: { target_url: '/cb?code=SECRET-CODE' } },
      'browser.event.source.metadata.target_url',
      '/cb?code=REDACTED',
    ],
    [
      'a URL inside nested metadata',
      { metadata: { targets: [{ u: 'https://h.example/?token=SECRET-T' }] } },
      'browser.event.source.metadata.targets',
      '[{"u":"https://h.example/?token=REDACTED"}]',
    ],
    [
      'a secret-named metadata key',
      { metadata: { refresh_token: 'SECRET-R' } },
      'browser.event.source.metadata.refresh_token',
      'REDACTED',
    ],
    [
      'a URL inside a metadata text',
      { metadata: { note: 'opened by https://h.example/cb?code=SECRET-N, then closed' } },
      'browser.event.source.metadata.note',
      'opened by https://h.example/cb?code=REDACTED, then closed',
    ],
    [
      'a metadata id, left as it is',
      { metadata: { target_id: 'AB92B97DAE78A851292B1D222DB3218E' } },
      'browser.event.source.metadata.target_id',
      'AB92B97DAE78A851292B1D222DB3218E',
    ],
    [
      'a URL-named metadata key without `://`',
      { metadata: { frame_url: 'about:blank?token=SECRET-A' } },
      'browser.event.source.metadata.frame_url',
      'about:blank?token=REDACTED',
    ],
  ])('%s', (_name, source, attr, expected) => {
    const r = map('page_navigation', { url: 'https://a.example/' }, source);
    expect(r.attributes[attr]).toBe(expected);
    expect(JSON.stringify(r)).not.toMatch(/SECRET-/);
  });

  it.each<[string, Record<string, unknown>, unknown]>([
    [
      'a redirect chain',
      { redirect_chain: ['https://a.example/?token=SECRET-1', 'https://b.example/cb#access_token=SECRET-2'] },
      { redirect_chain: ['https://a.example/?token=REDACTED', 'https://b.example/cb#access_token=REDACTED'] },
    ],
    [
      'a list of relative URLs under `urls`',
      { urls: ['/a?api_key=SECRET-3', '/b'] },
      { urls: ['/a?api_key=REDACTED', '/b'] },
    ],
    [
      'objects inside an array',
      { hops: [{ location: 'https://c.example/;jsessionid=SECRET-4' }] },
      { hops: [{ location: 'https://c.example/;jsessionid=REDACTED' }] },
    ],
  ])('%s', (_name, data, expected) => {
    const r = map('network_response', data);
    expect(r.body).toMatchObject(expected as object);
    expect(JSON.stringify(r)).not.toMatch(/SECRET-/);
  });

  it.each<[string, string, Record<string, unknown>, unknown]>([
    [
      'a JSON login',
      'network_request',
      { post_data: '{"email":"a@example.com","password":"SECRET-PW"}' },
      { post_data: '{"email":"a@example.com","password":"REDACTED"}' },
    ],
    [
      'a form with client_secret',
      'network_request',
      { post_data: 'grant_type=client_credentials&client_secret=SECRET-CS' },
      { post_data: 'grant_type=client_credentials&client_secret=REDACTED' },
    ],
    [
      'a token response',
      'network_response',
      { body: '{"access_token":"SECRET-AT","expires_in":3600,"user":{"api_key":"SECRET-K"}}' },
      { body: '{"access_token":"REDACTED","expires_in":3600,"user":{"api_key":"REDACTED"}}' },
    ],
    [
      'a body as JSON already',
      'network_response',
      { body: { items: [{ secret: 'SECRET-S' }] } },
      { body: { items: [{ secret: 'REDACTED' }] } },
    ],
  ])('%s', (_name, type, data, expected) => {
    const r = map(type, data);
    expect(r.body).toMatchObject(expected as object);
    expect(JSON.stringify(r)).not.toMatch(/SECRET-/);
  });

  it('bodies without secrets stay exactly as sent', () => {
    const body = '{ "q": "shoes",  "page": 2 }';
    expect(map('network_request', { post_data: body }).body).toMatchObject({ post_data: body });
    expect(maskBodySecrets('plain text, no form', bodyNames)).toBe('plain text, no form');
  });

  it('mask_body_secrets: false leaves bodies verbatim', () => {
    const off = createMapper(parseMappingOptions({ redaction: { mask_body_secrets: false } }, 'mapping'));
    const r = off.map(envelopeOf('network_request', 'network', { post_data: 'password=x' }), CTX, 1)!;
    expect(r.body).toMatchObject({ post_data: 'password=x' });
  });
});
