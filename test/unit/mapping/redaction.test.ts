// Redaction: header values, URL user-info and signature-like parameters, dropped
// members; secrets must be absent from the record's JSON (the form the spool and logs see).
import { describe, expect, it } from 'vitest';
import { MAX_BODY_DEPTH } from '../../../src/mapping/body-transform.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import type { Emit } from '../../../src/vocabulary/facts.js';
import { compileNameMatcher } from '../../../src/mapping/name-matcher.js';
import {
  defaultMappingOptions,
  parseMappingOptions,
  type MappingOptions,
} from '../../../src/config/mapping-section.js';
import { addUrlAttributes, createUrlRedactor, URL_MEMO_CHARS } from '../../../src/mapping/redact-url.js';
import { CTX, envelopeOf } from './helpers.js';

/** A worker's URL in a data: document (an opaque origin), as Chromium gives it. */
const NULL_BLOB = 'blob:null/83f934c7-b316-4329-9ec9-83db4943886e';
const redactor = createUrlRedactor(compileNameMatcher(defaultMappingOptions.redaction.queryParams), true);

describe('URL redaction', () => {
  it.each([
    ['https://shop.example/a?b=1', 'https://shop.example/a?b=1'],
    ['https://shop.example/', 'https://shop.example/'],
    ['https://user@shop.example/', 'https://REDACTED@shop.example/'],
    ['https://user:pw@shop.example:8443/p', 'https://REDACTED:REDACTED@shop.example:8443/p'],
    ['https://u:p@w@shop.example/', 'https://REDACTED:REDACTED@shop.example/'],
    ['//user:pw@cdn.example/x', '//REDACTED:REDACTED@cdn.example/x'],
    ['https://shop.example/@home?x=1', 'https://shop.example/@home?x=1'],
    ['https://shop.example/?q=a@b', 'https://shop.example/?q=a@b'],
    [
      'https://b.s3.example/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=AK%2F1&X-Amz-Signature=ff&X-Amz-Security-Token=tt',
      'https://b.s3.example/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Security-Token=REDACTED',
    ],
    ['https://a.blob.example/c?sv=2020&sig=abc%2B&se=2030', 'https://a.blob.example/c?sv=2020&sig=REDACTED&se=2030'],
    ['wss://proxy.example/devtools?jwt=eyJ.x.y', 'wss://proxy.example/devtools?jwt=REDACTED'],
    ['https://app.example/cb#access_token=t&state=s', 'https://app.example/cb#access_token=REDACTED&state=s'],
    ['https://app.example/cb?code=c1&state=s#frag', 'https://app.example/cb?code=REDACTED&state=s#frag'],
    ['https://maps.example/api?KEY=AIza&callback=f', 'https://maps.example/api?KEY=REDACTED&callback=f'],
    ['https://x.example/?%74oken=zz', 'https://x.example/?%74oken=REDACTED'],
    ['https://x.example/?token=&a', 'https://x.example/?token=&a'],
    ['https://x.example/?keyboard=1&monkey=2', 'https://x.example/?keyboard=1&monkey=2'],
    ['/relative/path?api_key=1', '/relative/path?api_key=REDACTED'],
    ['data:text/plain,token=abc', 'data:text/plain,token=abc'],
    [NULL_BLOB, NULL_BLOB],
    [`${NULL_BLOB}#access_token=t`, `${NULL_BLOB}#access_token=REDACTED`],
    ['not a url', 'not a url'],
    ['', ''],
  ])('%s', (input, output) => expect(redactor.redact(input)).toBe(output));

  it('returns the very same string when nothing changes (no copy on the hot path)', () => {
    const url = 'https://shop.example/a?page=2#top';
    expect(redactor.redact(url)).toBe(url);
  });

  it('user-info masking can be switched off', () => {
    const r = createUrlRedactor(compileNameMatcher([]), false);
    expect(r.redact('https://u:p@h.example/?sig=1')).toBe('https://u:p@h.example/?sig=1');
  });
});

describe('URL attributes', () => {
  it.each([
    [
      'https://Shop.Example:8443/a?b',
      {
        'url.full': 'https://Shop.Example:8443/a?b',
        'url.scheme': 'https',
        'server.address': 'Shop.Example',
        'server.port': 8443,
      },
    ],
    ['HTTP://[::1]:80/', { 'url.scheme': 'http', 'server.address': '::1', 'server.port': 80 }],
    ['https://REDACTED:REDACTED@h.example/', { 'server.address': 'h.example' }],
    ['about:blank', { 'url.full': 'about:blank', 'url.scheme': 'about' }],
    ['/relative', { 'url.full': '/relative' }],
  ])('%s', (url, expected) => {
    const attrs = {};
    addUrlAttributes(attrs, url);
    expect(attrs).toMatchObject(expected);
  });
  it.each([
    ['chrome-error://chromewebdata/', 'chrome-error'],
    ['chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html', 'chrome-extension'],
    ['devtools://devtools/bundled/inspector.html', 'devtools'],
    ['blob:https://shop.example/1b4e28ba-2fa1-41d2-a8e3-0a2f6e3b1c7d', 'blob'],
    // An opaque origin's (a data: document's worker): "null" is no host.
    [NULL_BLOB, 'blob'],
  ])("%s: a browser's own URL names no server", (url, scheme) => {
    const attrs = {};
    addUrlAttributes(attrs, url);
    expect(attrs).toEqual({ 'url.scheme': scheme, 'url.full': url });
  });
  it.each([
    ['wss://proxy.example:9222/devtools', { 'server.address': 'proxy.example', 'server.port': 9222 }],
    ['ftp://files.example/a', { 'server.address': 'files.example' }],
    ['//cdn.example/x', { 'server.address': 'cdn.example' }],
  ])('%s: a server', (url, expected) => {
    const attrs = {};
    addUrlAttributes(attrs, url);
    expect(attrs).toMatchObject(expected);
  });
  it.each(['https://h.example:99999/', 'https://h.example:65536/'])('%s: a port past 65535 is none', (url) => {
    const attrs = {};
    addUrlAttributes(attrs, url);
    expect(attrs).toEqual({ 'url.scheme': 'https', 'url.full': url, 'server.address': 'h.example' });
  });
  it('the same URL again, past the memo bound, and longer than the memo takes: the same attributes', () => {
    const cases = [
      'https://Shop.Example:8443/a?b',
      'HTTP://[::1]:80/',
      'https://REDACTED:REDACTED@h.example/',
      'about:blank',
      '/relative',
      'https://h.example:123456/',
      `https://long.example/${'p'.repeat(URL_MEMO_CHARS)}`,
      ...Array.from({ length: 600 }, (_, i) => `https://host-${i}.example:${i}/`),
    ];
    const once = (url: string): Record<string, unknown> => {
      const attrs = {};
      addUrlAttributes(attrs, url);
      return attrs;
    };
    const first = cases.map(once);
    for (let round = 0; round < 2; round++) for (const [i, url] of cases.entries()) expect(once(url)).toEqual(first[i]);
    // Insertion order is part of the record's bytes.
    expect(Object.keys(first[0]!)).toEqual(['url.scheme', 'url.full', 'server.address', 'server.port']);
    expect(first[5]).toEqual({
      'url.scheme': 'https',
      'url.full': 'https://h.example:123456/',
      'server.address': 'h.example',
    });
    expect(first[6]).toMatchObject({ 'server.address': 'long.example' });
    expect(first[107]).toEqual({
      'url.scheme': 'https',
      'url.full': 'https://host-100.example:100/',
      'server.address': 'host-100.example',
      'server.port': 100,
    });
  });

  it('data: URLs promote only the scheme', () => {
    const attrs = {};
    addUrlAttributes(attrs, `data:image/png;base64,${'A'.repeat(100)}`);
    expect(attrs).toEqual({ 'url.scheme': 'data' });
  });
});

function mapOne(options: MappingOptions, type: string, data: Record<string, unknown>, emit?: Emit) {
  const record = createMapper(options, emit === undefined ? {} : { emit }).map(
    envelopeOf(type, 'network', data),
    CTX,
    1,
  );
  if (record === null) throw new Error('filtered');
  return record;
}

const SECRETS = [
  'Bearer-SECRET-1',
  'sid=SECRET-2',
  'SECRET-3',
  'SECRET-4',
  'SECRET-5',
  'SECRET-6',
  'SECRET-7',
  'SECRET-8',
];

describe('headers and bodies', () => {
  const request = {
    url: 'https://alice:SECRET-6@api.example/v1?X-Goog-Signature=SECRET-7&page=1',
    method: 'POST',
    headers: {
      Authorization: SECRETS[0],
      Cookie: SECRETS[1],
      'X-API-Key': SECRETS[2],
      'x-amz-security-token': SECRETS[3],
      'Proxy-Authorization': [SECRETS[4]],
      Referer: 'https://shop.example/?session_token=SECRET-8',
      Accept: 'application/json',
    },
    post_data: 'user=alice&password=hunter2',
    document_url: 'https://shop.example/',
  };

  it('masks every sensitive header and URL secret by default; none reaches the record JSON', () => {
    const record = mapOne(defaultMappingOptions, 'network_request', request);
    const text = JSON.stringify(record);
    for (const s of SECRETS) expect(text).not.toContain(s);
    expect(record.body).toMatchObject({
      headers: {
        Authorization: 'REDACTED',
        Cookie: 'REDACTED',
        'X-API-Key': 'REDACTED',
        'x-amz-security-token': 'REDACTED',
        'Proxy-Authorization': 'REDACTED',
        Referer: 'https://shop.example/?session_token=REDACTED',
        Accept: 'application/json',
      },
      url: 'https://REDACTED:REDACTED@api.example/v1?X-Goog-Signature=REDACTED&page=1',
      // A form's secret-named fields are masked by default (mask_body_secrets); the rest stays.
      post_data: 'user=alice&password=REDACTED',
    });
    expect(record.attributes['url.full']).toBe(
      'https://REDACTED:REDACTED@api.example/v1?X-Goog-Signature=REDACTED&page=1',
    );
  });

  it('masks set-cookie in responses and nested headers of unknown types', () => {
    const r1 = mapOne(defaultMappingOptions, 'network_response', {
      status: 200,
      headers: { 'Set-Cookie': 'a=SECRET-2' },
    });
    expect(JSON.stringify(r1)).not.toContain('SECRET');
    const r2 = mapOne(defaultMappingOptions, 'proxy_error', {
      upstream: { headers: { authorization: 'SECRET-1' }, target_url: 'https://u:SECRET-3@x.example/' },
    });
    expect(JSON.stringify(r2)).not.toContain('SECRET');
  });

  it('drops post_data, response body and api_call.code when switched on', () => {
    const options = parseMappingOptions(
      { redaction: { drop_post_data: true, drop_response_body: true, drop_api_call_code: true } },
      'mapping',
    );
    expect(mapOne(options, 'network_request', request).body).toMatchObject({ post_data: 'REDACTED' });
    expect(mapOne(options, 'network_response', { status: 200, body: '{"ssn":"123"}' }).body).toMatchObject({
      body: 'REDACTED',
    });
    expect(mapOne(options, 'api_call', { status: 200, code: 'const pw = "x"' }).body).toMatchObject({
      code: 'REDACTED',
    });
    // Only on their own types: a `body` of another type is data, not a response body.
    expect(mapOne(options, 'proxy_error', { body: 'kept' }).body).toEqual({ body: 'kept' });
  });

  it('configurable lists: additional headers and parameters, or replaced lists', () => {
    const options = parseMappingOptions(
      { redaction: { additional_headers: ['x-tenant'], additional_query_params: ['tenant'] } },
      'mapping',
    );
    const r = mapOne(options, 'network_request', {
      url: 'https://h.example/?tenant=t1&sig=s',
      headers: { 'X-Tenant': 't1', authorization: 'a' },
    });
    expect(r.body).toMatchObject({
      url: 'https://h.example/?tenant=REDACTED&sig=REDACTED',
      headers: { 'X-Tenant': 'REDACTED', authorization: 'REDACTED' },
    });
    const replaced = parseMappingOptions({ redaction: { headers: ['x-only'] } }, 'mapping');
    expect(mapOne(replaced, 'network_request', { headers: { authorization: 'a' } }).body).toEqual({
      headers: { authorization: 'a' },
    });
  });

  it('redaction off passes everything through', () => {
    const options = parseMappingOptions({ redaction: { enabled: false, drop_post_data: true } }, 'mapping');
    const r = mapOne(options, 'network_request', request);
    expect(r.body).toEqual(request);
  });

  it('counts redactions by kind, once per event, never with values', () => {
    const calls: unknown[][] = [];
    const stats: Emit = (f) => void (f.f === 'values_redacted' && calls.push([f.type, f.kind]));
    const options = parseMappingOptions({ redaction: { drop_post_data: true } }, 'mapping');
    mapOne(options, 'network_request', request, stats);
    expect(calls).toEqual([
      ['network_request', 'header'],
      ['network_request', 'url'],
      ['network_request', 'post_data'],
    ]);
  });

  it('a URL masked again (remembered), past the memo bound, and longer than the memo takes', () => {
    const mapper = createMapper(defaultMappingOptions);
    const long = `https://long.example/${'p'.repeat(URL_MEMO_CHARS)}?token=SECRET-L&a=1`;
    const urls = [
      request.url,
      long,
      ...Array.from({ length: 600 }, (_, i) => `https://h${i}.example/x?sig=SECRET-${i}&i=${i}`),
      request.url,
      long,
    ];
    for (const [i, url] of urls.entries()) {
      const record = mapper.map(envelopeOf('network_request', 'network', { url, redirect_urls: [url] }), CTX, 1)!;
      const body = record.body as { url: string; redirect_urls: string[] };
      expect(JSON.stringify(record)).not.toMatch(/SECRET/);
      expect(body.redirect_urls[0]).toBe(body.url);
      expect(record.attributes['url.full']).toBe(body.url);
      if (i === 0 || i === 602)
        expect(body.url).toBe('https://REDACTED:REDACTED@api.example/v1?X-Goog-Signature=REDACTED&page=1');
      if (i === 1 || i === 603) expect(body.url.endsWith('?token=REDACTED&a=1')).toBe(true);
      if (i === 102) expect(body.url).toBe('https://h100.example/x?sig=REDACTED&i=100');
    }
  });

  it('never modifies the envelope it maps', () => {
    const env = envelopeOf('network_request', 'network', structuredClone(request));
    const before = JSON.stringify(env);
    createMapper(defaultMappingOptions).map(env, CTX, 1);
    expect(JSON.stringify(env)).toBe(before);
  });
});

describe('redaction holes', () => {
  it('headers sent as a list of {name, value} entries are masked like a headers object', () => {
    const r = mapOne(defaultMappingOptions, 'network_request', {
      headers: [
        { name: 'Authorization', value: 'Bearer SECRET-1' },
        { name: 'cookie', value: ['sid=SECRET-2'] },
        { name: 'Referer', value: 'https://shop.example/?access_token=SECRET-3' },
        { name: 'Accept', value: 'text/html' },
        'not an entry',
      ],
    });
    expect(JSON.stringify(r)).not.toContain('SECRET');
    expect(r.body).toEqual({
      headers: [
        { name: 'Authorization', value: 'REDACTED' },
        { name: 'cookie', value: 'REDACTED' },
        { name: 'Referer', value: 'https://shop.example/?access_token=REDACTED' },
        { name: 'Accept', value: 'text/html' },
        'not an entry',
      ],
    });
  });

  it('source.metadata (and unknown source members) named like credentials are masked; ids pass', () => {
    const calls: unknown[][] = [];
    const stats: Emit = (f) => void (f.f === 'values_redacted' && calls.push([f.type, f.kind]));
    const env = envelopeOf('api_call', 'control', { status: 200 });
    env.event.source = {
      kind: 'kernel_api',
      metadata: {
        authorization: 'Bearer SECRET-1',
        'X-Api-Key': 'SECRET-2',
        refresh_token: 'SECRET-3',
        telemetry_session_id: 'tsid-1',
        cdp_session_id: 'C1',
      },
      auth_token: 'SECRET-4',
    };
    const r = createMapper(defaultMappingOptions, { emit: stats }).map(env, CTX, 1)!;
    expect(JSON.stringify(r)).not.toContain('SECRET');
    expect(r.attributes).toMatchObject({
      'browser.event.source.metadata.authorization': 'REDACTED',
      'browser.event.source.metadata.X-Api-Key': 'REDACTED',
      'browser.event.source.metadata.refresh_token': 'REDACTED',
      'browser.event.source.metadata.telemetry_session_id': 'tsid-1',
      'browser.event.source.metadata.cdp_session_id': 'C1',
      'browser.event.source.extra': '{"auth_token":"REDACTED"}',
    });
    expect(calls).toContainEqual(['api_call', 'source_metadata']);
    const off = parseMappingOptions({ redaction: { enabled: false } }, 'mapping');
    expect(createMapper(off).map(env, CTX, 1)!.attributes['browser.event.source.metadata.authorization']).toBe(
      'Bearer SECRET-1',
    );
  });

  it('headers and URLs nested deeper than the body depth limit are masked in the JSON text that replaces them', () => {
    let deep: Record<string, unknown> = {
      headers: { Authorization: 'SECRET-1', list: 1 },
      more: [{ headers: [{ name: 'set-cookie', value: 'SECRET-2' }] }],
      target_url: 'https://u:SECRET-3@x.example/?sig=SECRET-4',
    };
    for (let i = 0; i < MAX_BODY_DEPTH + 5; i++) deep = { nested: deep };
    const r = mapOne(defaultMappingOptions, 'future_widget', { wrapper: deep });
    const text = JSON.stringify(r);
    expect(text).toContain('REDACTED');
    expect(text).not.toContain('SECRET');
    // A subtree that is itself a `headers` member below the limit is masked too.
    let headersDeep: Record<string, unknown> = {};
    let cursor = headersDeep;
    for (let i = 0; i < MAX_BODY_DEPTH - 1; i++) cursor = cursor.nested = {};
    cursor.headers = { cookie: 'SECRET-5', nested: { deeper: 1 } };
    headersDeep = { root: headersDeep };
    expect(JSON.stringify(mapOne(defaultMappingOptions, 'future_widget', headersDeep))).not.toContain('SECRET');
  });

  it.each([
    ['p', 'REDACTED'],
    ['7', 'REDACTED'],
    [' ', 'REDACTED'],
    ['é', 'REDACTED'],
    ['😀', 'REDACTED'],
    ['Enter', 'Enter'],
    ['ArrowDown', 'ArrowDown'],
    ['F5', 'F5'],
    ['Shift', 'Shift'],
  ])('interaction_key.key %j → %j (typed characters masked, named keys kept)', (key, expected) => {
    expect(mapOne(defaultMappingOptions, 'interaction_key', { key, tag: 'INPUT' }).body).toEqual({
      key: expected,
      tag: 'INPUT',
    });
  });

  it('typed-key masking is counted and can be switched off', () => {
    const calls: unknown[][] = [];
    const stats: Emit = (f) => void (f.f === 'values_redacted' && calls.push([f.type, f.kind]));
    mapOne(defaultMappingOptions, 'interaction_key', { key: 'x' }, stats);
    expect(calls).toEqual([['interaction_key', 'typed_key']]);
    const off = parseMappingOptions({ redaction: { mask_typed_keys: false } }, 'mapping');
    expect(mapOne(off, 'interaction_key', { key: 'x' }).body).toEqual({ key: 'x' });
  });
});
