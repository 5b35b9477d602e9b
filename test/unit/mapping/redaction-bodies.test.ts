// Secrets the redaction did not see (issue 27 item 3): JSON bodies cut by the service at 8,192
// bytes, anti-XSSI prefixes, multipart bodies, arrays and objects under a secret key, short form
// field names, API-key headers under other names, and signed URLs inside free text. Table-driven:
// each row is what the service sends and what must reach the record; every `SECRET-` value must be
// gone from the record's JSON, and what is not secret must stay as it was sent.
import { describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { maskBodySecrets } from '../../../src/mapping/body-secrets.js';
import { maskJsonText } from '../../../src/mapping/mask-json-text.js';
import { compileNameMatcher, matchesFieldName } from '../../../src/mapping/name-matcher.js';
import { createUrlRedactor } from '../../../src/mapping/redact-url.js';
import { redactUrlsInText } from '../../../src/mapping/redact-free-text.js';
import { createTailView } from '../../../src/cli/tail-view.js';
import { CTX, envelopeOf } from './helpers.js';

const d = defaultMappingOptions.redaction;
const bodyNames = compileNameMatcher([...d.headers, ...d.queryParams]);
const urls = createUrlRedactor(compileNameMatcher(d.queryParams), true);
const mapper = createMapper(defaultMappingOptions);
const tail = createTailView(d, true);

/** What the service sends for a string over 8,192 bytes: cut, with `...[truncated]` appended. */
const cut = (s: string): string => s.slice(0, 8192 - 14) + '...[truncated]';
const filler = Array.from({ length: 120 }, (_, i) => ({ order: i, status: 'shipped', note: 'left at the door' }));

describe('bodies: cut, prefixed, multipart, nested under a secret key, short field names', () => {
  const cutJson = cut(JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'SECRET-RT', history: filler }));
  const cutInside = cut(
    JSON.stringify({ history: filler.slice(0, 98), id: 7, access_token: 'SECRET-' + 'x'.repeat(3000) }),
  );
  const boundary = '----WebKitFormBoundary7MA4YWxkTrZu0gW';
  const multipart = (parts: Array<[string, string]>, end = true): string =>
    parts
      .map(([name, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${v}\r\n`)
      .join('') + (end ? `--${boundary}--\r\n` : '');

  it.each<[string, string, string]>([
    // The service's cut: no longer JSON, still masked, the rest and the marker kept.
    [
      'a JSON body cut at 8,192 bytes',
      cutJson,
      cutJson.replace('"refresh_token":"SECRET-RT"', '"refresh_token":"REDACTED"'),
    ],
    [
      'a cut that ends inside the secret value',
      cutInside,
      cutInside.slice(0, cutInside.indexOf('SECRET-') - 1) + '"REDACTED"...[truncated]',
    ],
    // Anti-XSSI prefixes.
    [`Angular's )]}'`, `)]}'\n{"id_token":"SECRET-1","ok":true}`, `)]}'\n{"id_token":"REDACTED","ok":true}`],
    [`)]}', with a comma`, `)]}',\n[{"token":"SECRET-2"}]`, `)]}',\n[{"token":"REDACTED"}]`],
    ['for(;;);', 'for(;;);{"payload":{"access_token":"SECRET-3"}}', 'for(;;);{"payload":{"access_token":"REDACTED"}}'],
    ['while(1);', 'while(1);["x",{"client_secret":"SECRET-4"}]', 'while(1);["x",{"client_secret":"REDACTED"}]'],
    // Arrays and objects under a secret key are masked whole; null is no secret.
    ['an array under a secret key', '{"password":["SECRET-5","SECRET-6"],"a":1}', '{"password":"REDACTED","a":1}'],
    ['an object under a secret key', '{"secret":{"value":"SECRET-7","n":[1]},"b":2}', '{"secret":"REDACTED","b":2}'],
    ['a number and a null', '{"otp":123456,"token":null}', '{"otp":"REDACTED","token":null}'],
    // A JSON body keeps its layout: only the value changes.
    ['layout kept', '{ "user": "bob",\n  "password" : "SECRET-8" }', '{ "user": "bob",\n  "password" : "REDACTED" }'],
    ['an escaped member name', '{"pass\\u0077ord":"SECRET-9"}', '{"pass\\u0077ord":"REDACTED"}'],
    // multipart/form-data.
    [
      'a multipart login',
      multipart([
        ['username', 'bob'],
        ['password', 'SECRET-10'],
      ]),
      multipart([
        ['username', 'bob'],
        ['password', 'REDACTED'],
      ]),
    ],
    [
      'a multipart part holding JSON, and a bracketed name',
      multipart([
        ['meta', '{"api_key":"SECRET-11","title":"Holiday"}'],
        ['user[password]', 'SECRET-12'],
      ]),
      multipart([
        ['meta', '{"api_key":"REDACTED","title":"Holiday"}'],
        ['user[password]', 'REDACTED'],
      ]),
    ],
    [
      'a multipart body cut inside its last part',
      multipart(
        [
          ['note', 'hello'],
          ['token', 'SECRET-13'],
        ],
        false,
      ).slice(0, -2) + '...[truncated]',
      multipart(
        [
          ['note', 'hello'],
          ['token', 'REDACTED'],
        ],
        false,
      ).slice(0, -2) + '...[truncated]',
    ],
    // Short and single-sign-on field names in forms.
    ['pass', 'user=bob&pass=SECRET-14', 'user=bob&pass=REDACTED'],
    ['pwd', 'log=bob&pwd=SECRET-15&rememberme=forever', 'log=bob&pwd=REDACTED&rememberme=forever'],
    ['ticket', 'service=https%3A%2F%2Fapp&ticket=ST-SECRET-16', 'service=https%3A%2F%2Fapp&ticket=REDACTED'],
    ['SAMLResponse', 'SAMLResponse=PHNhbWxwOlNECRET-17&RelayState=%2Fhome', 'SAMLResponse=REDACTED&RelayState=%2Fhome'],
    ['a Rails form', 'user%5Bemail%5D=a&user[password]=SECRET-18', 'user%5Bemail%5D=a&user[password]=REDACTED'],
    ['a one-time code', 'otp=SECRET-19&cvc=SECRET-20', 'otp=REDACTED&cvc=REDACTED'],
  ])('%s', (_name, input, expected) => {
    expect(maskBodySecrets(input, bodyNames)).toBe(expected);
    const request = mapper.map(envelopeOf('network_request', 'network', { post_data: input }), CTX, 1)!;
    expect(request.body).toMatchObject({ post_data: expected });
    expect(JSON.stringify(request)).not.toMatch(/SECRET-/);
  });

  it.each<[string, string]>([
    ['names that only resemble a secret', 'passenger=2&ticket_count=3&nonce=n1&session=s&keyboard=de'],
    ['JSON with them', '{"passenger":2,"tickets":[1],"nonce":"n1","session":{"lang":"de"},"pass_through":true}'],
    [
      'a multipart body without secrets',
      `--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nHoliday\r\n--b--\r\n`,
    ],
    ['a cut body without secrets', cut(JSON.stringify({ history: filler }))],
    ['prose that mentions a prefix', `)]}' is an anti-XSSI prefix`],
  ])('%s stay exactly as sent', (_name, input) => {
    expect(maskBodySecrets(input, bodyNames)).toBe(input);
  });

  it('a 9 KB JSON response cut by the service is masked in the record, the spool and tail alike', () => {
    const body = cut(JSON.stringify({ user: { id: 1 }, history: filler, refresh_token: 'SECRET-RT2' }).padEnd(9000));
    const env = envelopeOf('network_response', 'network', { url: 'https://a.example/token', status: 200, body });
    const record = mapper.map(env, CTX, 1)!;
    expect(JSON.stringify(record)).not.toMatch(/SECRET-/);
    expect((record.body as { body: string }).body).toMatch(/"history":\[\{"order":0,"status":"shipped"/);
    expect(tail.view(env).data).toEqual(record.body);
    expect(tail.json(env, JSON.stringify(env))).not.toMatch(/SECRET-/);
  });

  it('an object body under a secret key is masked whole', () => {
    const body = { items: [{ password: ['SECRET-21'] }], secret: { value: 'SECRET-22' }, token: null };
    expect(maskBodySecrets(body, bodyNames)).toEqual({
      items: [{ password: 'REDACTED' }],
      secret: 'REDACTED',
      token: null,
    });
  });
});

describe('the JSON text scanner', () => {
  const names = compileNameMatcher(['password', 'token']);
  it.each<[string, string | null]>([
    ['{"a":"\\"password\\":\\"x\\"","b":1}', null],
    ['{"a":"quote \\\\","password":"p"}', '{"a":"quote \\\\","password":"REDACTED"}'],
    ['{"password":"REDACTED"}', null],
    ['{"token":{"a":"}","b":[1,{"c":"]"}]},"after":"kept"}', '{"token":"REDACTED","after":"kept"}'],
    ['{"token":true}', '{"token":"REDACTED"}'],
    ['{"x":1,"token":', null],
    ['{"x":1,"tok', null],
    ['[{"token":"a"},{"token":"b"}]', '[{"token":"REDACTED"},{"token":"REDACTED"}]'],
    ['{"token":{"unclosed":["a",', '{"token":"REDACTED"'],
    // JSON inside a JSON string: decoded, masked, encoded again.
    [
      '{"payload":"{\\"password\\":\\"SECRET\\",\\"a\\":1}"}',
      '{"payload":"{\\"password\\":\\"REDACTED\\",\\"a\\":1}"}',
    ],
    ['["[{\\"token\\":\\"SECRET\\"}]"]', '["[{\\"token\\":\\"REDACTED\\"}]"]'],
    // Two levels down.
    [
      JSON.stringify({ outer: JSON.stringify({ inner: JSON.stringify({ password: 'SECRET' }) }) }),
      JSON.stringify({ outer: JSON.stringify({ inner: JSON.stringify({ password: 'REDACTED' }) }) }),
    ],
    // A serialized document behind escaped white space (a line break, a tab), as the same body
    // arrived as JSON is masked (maskJsonKeys sees the decoded string).
    [
      JSON.stringify({ payload: '\n' + JSON.stringify({ password: 'SECRET' }) }),
      JSON.stringify({ payload: '\n' + JSON.stringify({ password: 'REDACTED' }) }),
    ],
    [
      JSON.stringify({ payload: '\r\n\t [' + JSON.stringify({ token: 'SECRET' }) + ']' }),
      JSON.stringify({ payload: '\r\n\t [' + JSON.stringify({ token: 'REDACTED' }) + ']' }),
    ],
    // The same, with the white space or the bracket as \u escapes (a serializer may write them so).
    [
      '{"payload":"\\u000a{\\"password\\":\\"SECRET\\"}"}',
      JSON.stringify({ payload: '\n' + JSON.stringify({ password: 'REDACTED' }) }),
    ],
    [
      '{"payload":"\\u0020\\u005B{\\"token\\":\\"SECRET\\"}]"}',
      JSON.stringify({ payload: ' [' + JSON.stringify({ token: 'REDACTED' }) + ']' }),
    ],
    // A nested document with nothing secret stays byte for byte (escaped slashes kept).
    ['{"payload":"{\\"u\\":\\"a\\/b\\"}"}', null],
    // A string that merely starts with a brace is left alone.
    ['{"note":"{not json password: x"}', null],
    // The cut ends inside the nested string, even inside an escape.
    ['{"payload":"{\\"x\\":1,\\"token\\":\\"SECRET-abc', '{"payload":"{\\"x\\":1,\\"token\\":\\"REDACTED\\"'],
    ['{"payload":"{\\"token\\":\\"SECRET\\', '{"payload":"{\\"token\\":\\"REDACTED\\"'],
  ])('%s', (input, expected) => expect(maskJsonText(input, names)).toBe(expected));

  it('a body that arrived as JSON: JSON text in its string values is masked too', () => {
    const body = { wrapped: JSON.stringify({ password: 'SECRET-31', keep: 'yes' }), plain: '{not json' };
    expect(maskBodySecrets(body, names)).toEqual({
      wrapped: JSON.stringify({ password: 'REDACTED', keep: 'yes' }),
      plain: '{not json',
    });
  });
});

describe('bracketed field names', () => {
  const names = compileNameMatcher(['password', 'otp']);
  it.each<[string, boolean]>([
    ['password', true],
    ['user[password]', true],
    ['session[otp][]', true],
    ['a[password][x]', false],
    ['password[]', true],
    ['[]', false],
    ['user[]', false],
    ['user[name]', false],
  ])('%s', (name, expected) => expect(matchesFieldName(names, name)).toBe(expected));
});

describe('headers named like API keys', () => {
  it.each([
    'X-Auth-Key',
    'Ocp-Apim-Subscription-Key',
    'x-functions-key',
    'Authentication',
    'Cf-Access-Jwt-Assertion',
    // Authorization under a prefix: APIs behind a gateway that keeps Authorization for itself.
    'X-Authorization',
    'X-Forwarded-Authorization',
  ])('%s', (name) => {
    const env = envelopeOf('network_request', 'network', {
      url: 'https://api.example/',
      headers: { [name]: 'SECRET-H', accept: 'application/json' },
    });
    const record = mapper.map(env, CTX, 1)!;
    expect(record.body).toMatchObject({ headers: { [name]: 'REDACTED', accept: 'application/json' } });
    expect(JSON.stringify(record)).not.toMatch(/SECRET-/);
  });

  it("HTTP/2's :path gets URL redaction, as Referer does", () => {
    const headers = { ':path': '/api?tokenizer=bpe&access_token=SECRET-P', ':authority': 'api.example' };
    const env = envelopeOf('network_request', 'network', { url: 'https://api.example/api', headers });
    expect(mapper.map(env, CTX, 1)!.body).toMatchObject({
      headers: { ':path': '/api?tokenizer=bpe&access_token=REDACTED', ':authority': 'api.example' },
    });
  });

  it('headers that only resemble them stay readable', () => {
    const headers = {
      'content-type': 'text/html',
      'www-authenticate': 'Bearer realm="x"',
      'x-request-id': 'r1',
      'x-token-count': '42',
      'x-authorization-mode': 'oauth',
    };
    const env = envelopeOf('network_response', 'network', { url: 'https://api.example/', status: 401, headers });
    expect(mapper.map(env, CTX, 1)!.body).toMatchObject({ headers });
  });
});

describe('signed URLs inside free text', () => {
  const signed = 'https://b.s3.example/r.pdf?X-Amz-Credential=AK%2F1&X-Amz-Signature=SECRET-S';
  const masked = 'https://b.s3.example/r.pdf?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED';

  it.each<[string, string, string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'console text and args',
      'console_log',
      'console',
      { text: `download: ${signed}`, args: [`download: ${signed}`, '3'] },
      { text: `download: ${masked}`, args: [`download: ${masked}`, '3'] },
    ],
    [
      'an uncaught exception',
      'console_error',
      'console',
      { text: `Uncaught Error: cannot fetch ${signed}`, line: 1, column: 2, source_url: 'https://a.example/app.js' },
      { text: `Uncaught Error: cannot fetch ${masked}` },
    ],
    [
      'a clicked link text',
      'interaction_click',
      'interaction',
      { text: `(${signed}).`, x: 1, y: 2 },
      { text: `(${masked}).` },
    ],
    ['a tab title', 'page_tab_opened', 'page', { title: `Open ${signed}` }, { title: `Open ${masked}` }],
    [
      'an HTML body',
      'network_response',
      'network',
      { body: `<a href="${signed}">report</a>` },
      { body: `<a href="${masked}">report</a>` },
    ],
  ])('%s', (_name, type, category, data, expected) => {
    const env = envelopeOf(type, category, data);
    const record = mapper.map(env, CTX, 1)!;
    expect(record.body).toMatchObject(expected);
    expect(JSON.stringify(record)).not.toMatch(/SECRET-/);
    expect(tail.view(env).data).toEqual(record.body);
  });

  it('metadata free text too', () => {
    const env = envelopeOf('page_navigation', 'page', { url: 'https://a.example/' });
    env.event.source = { kind: 'cdp', metadata: { note: `fetched ${signed}` } };
    expect(mapper.map(env, CTX, 1)!.attributes['browser.event.source.metadata.note']).toBe(`fetched ${masked}`);
  });

  it.each<[string, string]>([
    ['two URLs', `a ${signed} b http://x.example/?sig=SECRET-2#t`],
    ['a URL in parentheses with a period', `(see ${signed}).`],
    ['a scheme after a digit', `1${signed}`],
  ])('%s', (_name, text) => {
    const out = redactUrlsInText(text, urls);
    expect(out).not.toMatch(/SECRET-/);
    expect(out.replaceAll('REDACTED', '')).toBe(text.replace(/=[^&#\s)]*/g, '=').replaceAll('REDACTED', ''));
  });

  it('text without a secret URL is the very same string', () => {
    const text = 'see https://shop.example/a?page=2 and ftp://h/x';
    expect(redactUrlsInText(text, urls)).toBe(text);
    expect(redactUrlsInText('no url here', urls)).toBe('no url here');
  });
});

describe('URLs in JSON text bodies', () => {
  it.each<[string, string, string]>([
    [
      'slashes escaped by the encoder',
      '{"next":"https:\\/\\/app.example\\/cb?code=SECRET-E1&state=s"}',
      '{"next":"https:\\/\\/app.example\\/cb?code=REDACTED&state=s"}',
    ],
    [
      'a URL inside a nested JSON string keeps its escaped quote',
      '{"payload":"{\\"u\\":\\"https://a.example/?token=SECRET-E2\\"}"}',
      '{"payload":"{\\"u\\":\\"https://a.example/?token=REDACTED\\"}"}',
    ],
  ])('%s', (_name, body, expected) => {
    const record = mapper.map(envelopeOf('network_response', 'network', { body }), CTX, 1)!;
    expect(record.body).toMatchObject({ body: expected });
  });
});
