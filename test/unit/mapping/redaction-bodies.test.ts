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
import { maskAgentCode } from '../../../src/mapping/mask-agent-code.js';
import { maskHtmlFields } from '../../../src/mapping/mask-html-fields.js';
import { compileNameMatcher, hasSecretFieldWord, matchesFieldName } from '../../../src/mapping/name-matcher.js';
import { createUrlRedactor } from '../../../src/mapping/redact-url.js';
import { redactUrlsInText } from '../../../src/mapping/redact-free-text.js';
import { createTailView } from '../../../src/cli/tail-view.js';
import type { JsonValue } from '../../../src/vocabulary/log-record.js';
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

describe('short secret words in field names and selectors', () => {
  it.each<[string, boolean]>([
    ['pin', true],
    ['#login-pw', true],
    ['user_PIN', true],
    ['otpCode', true],
    ['OTPCode', true],
    ['pin1', true],
    ['input[name=passcode]', true],
    ['password-confirm', true],
    ['cc-csc', true],
    // Whole words only.
    ['pinned', false],
    ['.spinner', false],
    ['#pwa-install', false],
    ['opinion', false],
    ['shipping', false],
    ['passwordless', false],
    ['typewriter', false],
  ])('%s', (name, expected) => expect(hasSecretFieldWord(name)).toBe(expected));
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
    [
      'a plain URL beside an escaped one: both masked',
      '{"a":"https://a.example/?token=SECRET-E3","b":"https:\\/\\/b.example\\/?code=SECRET-E4"}',
      '{"a":"https://a.example/?token=REDACTED","b":"https:\\/\\/b.example\\/?code=REDACTED"}',
    ],
  ])('%s', (_name, body, expected) => {
    const record = mapper.map(envelopeOf('network_response', 'network', { body }), CTX, 1)!;
    expect(record.body).toMatchObject({ body: expected });
  });

  // What a page prints may be such JSON too (console.log(JSON.stringify(…)) after a PHP or a
  // logger's encoder): the same masks as a body's, in every free text and in metadata.
  const printed = '{"url":"https:\\/\\/x.example\\/cb?code=SECRET-E5"}';
  const printedMasked = '{"url":"https:\\/\\/x.example\\/cb?code=REDACTED"}';
  it.each<[string, string, string, Record<string, unknown>, Record<string, unknown>]>([
    ['a console line', 'console_log', 'console', { text: printed, args: [printed] }, { text: printedMasked }],
    [
      'a console line with a plain URL too',
      'console_log',
      'console',
      { text: `see https://a.example/?sig=SECRET-E6 ${printed}` },
      { text: `see https://a.example/?sig=REDACTED ${printedMasked}` },
    ],
    [
      'an error text',
      'console_error',
      'console',
      { text: `Uncaught ${printed}` },
      { text: `Uncaught ${printedMasked}` },
    ],
  ])('%s', (_name, type, category, data, expected) => {
    const record = mapper.map(envelopeOf(type, category, data), CTX, 1)!;
    expect(record.body).toMatchObject(expected);
    expect(JSON.stringify(record)).not.toMatch(/SECRET-/);
  });

  it('metadata with escaped slashes', () => {
    const env = envelopeOf('page_navigation', 'page', { url: 'https://a.example/' });
    env.event.source = { kind: 'cdp', metadata: { note: printed } };
    expect(mapper.map(env, CTX, 1)!.attributes['browser.event.source.metadata.note']).toBe(printedMasked);
  });
});

describe('anti-forgery tokens and secret fields in HTML bodies', () => {
  it.each<[string, string, string]>([
    [
      'a hidden CSRF input',
      '<form><input type="hidden" name="csrf_token" value="SECRET-H1"><input name="q" value="shoes"></form>',
      '<form><input type="hidden" name="csrf_token" value="REDACTED"><input name="q" value="shoes"></form>',
    ],
    [
      "Rails' authenticity_token, unquoted, value first",
      '<INPUT value=SECRET-H2 type=hidden NAME=authenticity_token autocomplete=off>',
      '<INPUT value=REDACTED type=hidden NAME=authenticity_token autocomplete=off>',
    ],
    [
      "ASP.NET's, single quotes and a self-closing tag",
      "<input name='__RequestVerificationToken' type='hidden' value='SECRET-H3' />",
      "<input name='__RequestVerificationToken' type='hidden' value='REDACTED' />",
    ],
    [
      "Django's, Express's _csrf and Tornado's _xsrf",
      '<input name="csrfmiddlewaretoken" value="SECRET-H4"><input name="_csrf" value="SECRET-H5"><input name=_xsrf value=SECRET-H6>',
      '<input name="csrfmiddlewaretoken" value="REDACTED"><input name="_csrf" value="REDACTED"><input name=_xsrf value=REDACTED>',
    ],
    [
      'meta tags for scripts; csrf-param names the field, no secret',
      '<head>\n<meta name="csrf-param" content="authenticity_token">\n<meta content="SECRET-H7" name="csrf-token">\n<meta name="_csrf" content="SECRET-H8"/>',
      '<head>\n<meta name="csrf-param" content="authenticity_token">\n<meta content="REDACTED" name="csrf-token">\n<meta name="_csrf" content="REDACTED"/>',
    ],
    [
      'a filled-in password field, a bracketed name, an id',
      '<input type="PASSWORD" name="pw1" value="SECRET-H9"><input name="user[password]" value="SECRET-H10"><input id="api-key" value="SECRET-H11">',
      '<input type="PASSWORD" name="pw1" value="REDACTED"><input name="user[password]" value="REDACTED"><input id="api-key" value="REDACTED">',
    ],
    [
      'a textarea holding a key, and one holding none',
      '<textarea name="client_secret" rows=4>-----BEGIN PRIVATE KEY-----\nSECRET-H13\n</textarea><textarea name="bio">hi <input></textarea><TEXTAREA id=api-secret>SECRET-H14</TEXTAREA >',
      '<textarea name="client_secret" rows=4>REDACTED</textarea><textarea name="bio">hi <input></textarea><TEXTAREA id=api-secret>REDACTED</TEXTAREA >',
    ],
    [
      "JSON a page embeds for its scripts (Next.js's __NEXT_DATA__ with NextAuth's csrfToken)",
      '<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"csrfToken":"SECRET-H16","user":"bob"}}}</script><script type="application/ld+json">{"@type":"Product","name":"shoe"}</script>',
      '<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"csrfToken":"REDACTED","user":"bob"}}}</script><script type="application/ld+json">{"@type":"Product","name":"shoe"}</script>',
    ],
    [
      'markup written by scripts and templates, and shown in a textarea',
      '<script>document.write(\'<input name="csrf_token" value="SECRET-H18">\')</script><script type="text/template"><input name="_csrf" value="SECRET-H19"></script><textarea name="source"><input name=password value=SECRET-H20></textarea>',
      '<script>document.write(\'<input name="csrf_token" value="REDACTED">\')</script><script type="text/template"><input name="_csrf" value="REDACTED"></script><textarea name="source"><input name=password value=REDACTED></textarea>',
    ],
    [
      'embedded JSON the service cut',
      '<SCRIPT type=application/json>\n {"access_token":"SECRET-H17...[truncated]',
      '<SCRIPT type=application/json>\n {"access_token":"REDACTED"...[truncated]',
    ],
    [
      'a textarea the service cut',
      '<textarea name="password">SECRET-H15...[truncated]',
      '<textarea name="password">REDACTED...[truncated]',
    ],
    [
      'fields named by a short word of their name or id: a PIN, a login-pw, an OTP',
      '<input name="pin" value="SECRET-H21"><input id="login-pw" value="SECRET-H22"><input name="otpCode" value="SECRET-H23"><input name="user_PIN" value=SECRET-H24><input id="password-confirm" value="SECRET-H25">',
      '<input name="pin" value="REDACTED"><input id="login-pw" value="REDACTED"><input name="otpCode" value="REDACTED"><input name="user_PIN" value=REDACTED><input id="password-confirm" value="REDACTED">',
    ],
    [
      'fields that say what they hold by autocomplete',
      '<input name="f1" autocomplete="current-password" value="SECRET-H26"><input name="f2" autocomplete="NEW-PASSWORD" value="SECRET-H27"><input name="f3" autocomplete="one-time-code" value="SECRET-H28"><input name="f4" autocomplete="section-pay billing cc-number" value="SECRET-H29"><input name="f5" autocomplete=cc-csc value=SECRET-H30><input name="email" autocomplete="username" value="bob@example.com">',
      '<input name="f1" autocomplete="current-password" value="REDACTED"><input name="f2" autocomplete="NEW-PASSWORD" value="REDACTED"><input name="f3" autocomplete="one-time-code" value="REDACTED"><input name="f4" autocomplete="section-pay billing cc-number" value="REDACTED"><input name="f5" autocomplete=cc-csc value=REDACTED><input name="email" autocomplete="username" value="bob@example.com">',
    ],
    [
      "a secret select's options, and a plain one's",
      '<select name="pin"><option value="SECRET-H31">SECRET-H32</option><option selected value=\'SECRET-H33\'>SECRET-H34</select><select name="country"><option value="de" selected>Germany</option></select>',
      '<select name="pin"><option value="REDACTED">REDACTED</option><option selected value=\'REDACTED\'>REDACTED</select><select name="country"><option value="de" selected>Germany</option></select>',
    ],
    [
      'names, types and autocomplete written with character references, as a browser reads them',
      '<input name="pass&#119;ord" value="SECRET-H45"><input type="pass&#X77;ord" value="SECRET-H46"><meta name="csrf&lowbar;token" content="SECRET-H47"><input autocomplete="one&#x2d;time&#45code" value="SECRET-H48"><input name="q&amp;a" value="kept">',
      '<input name="pass&#119;ord" value="REDACTED"><input type="pass&#X77;ord" value="REDACTED"><meta name="csrf&lowbar;token" content="REDACTED"><input autocomplete="one&#x2d;time&#45code" value="REDACTED"><input name="q&amp;a" value="kept">',
    ],
    [
      "a secret select's option labels, before or after the value",
      '<select name="pin"><option label="SECRET-H56" value="SECRET-H57"></option><option value=SECRET-H58 label=SECRET-H59>SECRET-H60</option></select>',
      '<select name="pin"><option label="REDACTED" value="REDACTED"></option><option value=REDACTED label=REDACTED>REDACTED</option></select>',
    ],
    [
      'a secret select the service cut',
      '<select id="api-key"><option selected>SECRET-H35...[truncated]',
      '<select id="api-key"><option selected>REDACTED...[truncated]',
    ],
    [
      "state a server renders into an inline script (Redux's __INITIAL_STATE__, Apollo's)",
      '<script>window.__INITIAL_STATE__ = {"session":{"csrfToken":"SECRET-H36","user":"bob"}};var n=1;</script><script>window.__APOLLO_STATE__={"User:1":{"password":"SECRET-H37"}}</script><script>self.__STATE__ =\n [{"access_token":"SECRET-H38"}]</script>',
      '<script>window.__INITIAL_STATE__ = {"session":{"csrfToken":"REDACTED","user":"bob"}};var n=1;</script><script>window.__APOLLO_STATE__={"User:1":{"password":"REDACTED"}}</script><script>self.__STATE__ =\n [{"access_token":"REDACTED"}]</script>',
    ],
    [
      "state under a name that only starts with __ (Remix's __remixContext), or assigned by a quoted name",
      '<script>window.__remixContext = {"state":{"loaderData":{"root":{"csrfToken":"SECRET-H42"}}}};</script><script>window["__INITIAL_STATE__"] = {"user":{"accessToken":"SECRET-H43"}};window[\'__APOLLO_STATE__\']=[{"password":"SECRET-H44"}]</script>',
      '<script>window.__remixContext = {"state":{"loaderData":{"root":{"csrfToken":"REDACTED"}}}};</script><script>window["__INITIAL_STATE__"] = {"user":{"accessToken":"REDACTED"}};window[\'__APOLLO_STATE__\']=[{"password":"REDACTED"}]</script>',
    ],
    [
      'state passed through JSON.parse, in either quotes, and one the service cut',
      '<script>window.__INITIAL_STATE__ = JSON.parse("{\\"session\\":{\\"csrfToken\\":\\"SECRET-H49\\",\\"user\\":\\"bob\\"}}");window.__APOLLO_STATE__=JSON.parse(\'{"User:1":{"password":"SECRET-H50","name":"It\\\'s me"}}\');</script><script>window.__S__ = JSON.parse(\'{"refresh_token":"SECRET-H51...[truncated]',
      '<script>window.__INITIAL_STATE__ = JSON.parse("{\\"session\\":{\\"csrfToken\\":\\"REDACTED\\",\\"user\\":\\"bob\\"}}");window.__APOLLO_STATE__=JSON.parse(\'{"User:1":{"password":"REDACTED","name":"It\\\'s me"}}\');</script><script>window.__S__ = JSON.parse(\'{"refresh_token":"REDACTED"...[truncated]',
    ],
    [
      "Next.js's server component payload",
      '<script>(self.__next_f=self.__next_f||[]).push([0])</script><script>self.__next_f.push([1,"5:[\\"$\\",\\"div\\",null,{\\"csrfToken\\":\\"SECRET-H41\\",\\"user\\":\\"bob\\"}]\\n"])</script>',
      '<script>(self.__next_f=self.__next_f||[]).push([0])</script><script>self.__next_f.push([1,"5:[\\"$\\",\\"div\\",null,{\\"csrfToken\\":\\"REDACTED\\",\\"user\\":\\"bob\\"}]\\n"])</script>',
    ],
    [
      "Next.js's payload in a page the service cut inside a chunk (the chunks close a page, where the cut lands)",
      '<script>self.__next_f.push([1,"5:[\\"$\\",\\"div\\",null,{\\"csrfToken\\":\\"SECRET-H61\\",\\"user\\":\\"bob\\"}]\\n6:{\\"refresh_token\\":\\"SECRET-H62...[truncated]',
      '<script>self.__next_f.push([1,"5:[\\"$\\",\\"div\\",null,{\\"csrfToken\\":\\"REDACTED\\",\\"user\\":\\"bob\\"}]\\n6:{\\"refresh_token\\":\\"REDACTED\\"...[truncated]',
    ],
    [
      "Next.js's payload cut after a chunk's string",
      '<script>self.__next_f.push([1,"5:{\\"csrfToken\\":\\"SECRET-H63\\"}\\n"...[truncated]',
      '<script>self.__next_f.push([1,"5:{\\"csrfToken\\":\\"REDACTED\\"}\\n"...[truncated]',
    ],
    [
      'inline state after a masked field, and one the service cut',
      '<input name="_csrf" value="SECRET-H39"><script>window.__PRELOADED_STATE__={"session":{"refresh_token":"SECRET-H40...[truncated]',
      '<input name="_csrf" value="REDACTED"><script>window.__PRELOADED_STATE__={"session":{"refresh_token":"REDACTED"...[truncated]',
    ],
    [
      "Next.js's server component payload as a response body (a client navigation's RSC rows), cut too",
      '0:["$","div",null,{"csrfToken":"SECRET-H52","user":"bob"}]\n1:I["(app)/page",["static/chunks/1.js"],"default"]\n2:{"session":{"accessToken":"SECRET-H53...[truncated]',
      '0:["$","div",null,{"csrfToken":"REDACTED","user":"bob"}]\n1:I["(app)/page",["static/chunks/1.js"],"default"]\n2:{"session":{"accessToken":"REDACTED"...[truncated]',
    ],
    [
      "a script served on its own (a runtime configuration's window.__ENV__), no markup in it",
      'window.__ENV__ = {"API_URL":"https://api.example","API_KEY":"SECRET-H54"};\nwindow.__INITIAL_STATE__=JSON.parse(\'{"csrfToken":"SECRET-H55"}\')',
      'window.__ENV__ = {"API_URL":"https://api.example","API_KEY":"REDACTED"};\nwindow.__INITIAL_STATE__=JSON.parse(\'{"csrfToken":"REDACTED"}\')',
    ],
    [
      'a page the service cut inside the token',
      '<input name="csrf_token" value="SECRET-H12...[truncated]',
      '<input name="csrf_token" value="REDACTED...[truncated]',
    ],
  ])('%s', (_name, html, expected) => {
    expect(maskBodySecrets(html, bodyNames)).toBe(expected);
    const env = envelopeOf('network_response', 'network', { url: 'https://a.example/login', status: 200, body: html });
    const record = mapper.map(env, CTX, 1)!;
    expect((record.body as { body: string }).body).toBe(expected);
    expect(JSON.stringify(record)).not.toMatch(/SECRET-/);
  });

  it.each<[string, string]>([
    [
      'ordinary inputs and metas',
      '<meta name="viewport" content="width=device-width"><input name="email" value="a@b.c">',
    ],
    ['tags that only begin alike', '<inputs name="csrf_token" value="v"><metadata name="csrf-token" content="c">'],
    ['an empty secret textarea', '<textarea name="password"></textarea>'],
    ['a token field left empty', '<input name="csrf_token" value=""><input name="csrf_token">'],
    ['prose', 'Send your csrf_token with value="x" in the form'],
    [
      'fields whose name only contains a short secret word',
      '<input name="pinned" value="1"><input id="spinner" value="3"><input name="pwa" value="yes"><input name="opinion" value="good"><select name="sort"><option value="new">New</option></select>',
    ],
    [
      'inline state without secrets, a comparison, and state before any script',
      '<p>__STATE__={"password":"shown"}</p><script>window.__STATE__={"user":"bob"}; if (window.__X__ == {"token":"t"}) f(); __Y__ = JSON.parse(text);</script>',
    ],
  ])('%s stay exactly as sent', (_name, html) => {
    expect(maskBodySecrets(html, bodyNames)).toBe(html);
  });

  it('hostile markup maps, and is masked where it names a secret', () => {
    // Unclosed tags and quotes, 200,000 characters each: one pass reads them (run, not timed).
    for (const html of [
      '<input '.repeat(30_000),
      '<input name=csrf_token value="' + 'a'.repeat(200_000),
      '<meta name="csrf-token" content=x>'.repeat(6_000),
      '<input name="'.repeat(15_000),
      '<textarea name=password>'.repeat(8_000),
      '<textarea></textarea>'.repeat(9_000),
      '<textarea>'.repeat(20_000),
      '<script>'.repeat(20_000),
      '<script type=application/json>{"a":'.repeat(6_000),
      '<script type=application/json>{"token":"x"}</script>'.repeat(4_000),
      '<select name=password><option '.repeat(10_000),
      '<select name=pin><option>x'.repeat(10_000),
      '<select name=pin>'.repeat(20_000),
      '<select name=pin></select>'.repeat(8_000),
      '<script>window.__S__={"a":'.repeat(8_000),
      '<script>__S__='.repeat(15_000),
      '<script>self.__next_f.push(['.repeat(7_000),
      '<script>self.__next_f.push([1,"{\\"token\\":1}"' + ',1'.repeat(100_000) + '])</script>',
      '<script>self.__next_f.push([1,"{\\"a\\":1}"])</script>'.repeat(4_000),
      '_'.repeat(200_000) + '<script>',
      '<script>' + '[ '.repeat(100_000),
      'x.__S__={"a":'.repeat(15_000),
      '<script>self.__next_f.push([1,"' + '\\u00{\\"token\\":'.repeat(15_000),
      '<script>self.__next_f.push([1,"5:{}"'.repeat(7_000),
      "<script>__S__=JSON.parse('" + "\\'".repeat(60_000),
      '<script>' + '__S__=JSON.parse("'.repeat(12_000),
      '<input type=password name="' + '&#x7'.repeat(50_000),
      '<script>' + '["__a" '.repeat(30_000),
      '<script>__' + 'a'.repeat(200_000) + ' =',
    ]) {
      const record = mapper.map(envelopeOf('network_response', 'network', { body: html }), CTX, 1)!;
      expect(record).not.toBeNull();
    }
  });
});

describe('inline state in hostile markup', () => {
  it('reads each part of a page once, however many states it holds', () => {
    // Each state's value is read to its end: from every one of 10,000 unclosed ones, the rest of
    // the page would be searched again (the member names counted here, about 50 million).
    let lookups = 0;
    const counting = { matches: (name: string): boolean => (lookups++, bodyNames.matches(name)) };
    for (const html of ['<script>__S__={"a":1,"b":'.repeat(10_000), '<script>x.__S__=[{"password":'.repeat(10_000)]) {
      lookups = 0;
      maskHtmlFields(html, counting);
      expect(lookups).toBeGreaterThan(0);
      expect(lookups).toBeLessThan(3 * 10_000);
    }
  });
});

describe('keys named private, secret or access with an underscore or none', () => {
  it.each<[string, string, string]>([
    [
      "a Google service account's key file",
      '{"type":"service_account","private_key_id":"k1","private_key":"-----BEGIN PRIVATE KEY-----\\nSECRET-K1","client_email":"a@b.iam"}',
      '{"type":"service_account","private_key_id":"k1","private_key":"REDACTED","client_email":"a@b.iam"}',
    ],
    [
      "AWS's temporary credentials and a CLI profile",
      '{"AccessKeyId":"ASIAEXAMPLE","SecretAccessKey":"SECRET-K2","p":{"aws_secret_access_key":"SECRET-K3"}}',
      '{"AccessKeyId":"ASIAEXAMPLE","SecretAccessKey":"REDACTED","p":{"aws_secret_access_key":"REDACTED"}}',
    ],
    [
      'camelCase keys of a client library',
      '{"secretKey":"SECRET-K4","privateKey":"SECRET-K5","access_key":"SECRET-K6","publicKey":"pk"}',
      '{"secretKey":"REDACTED","privateKey":"REDACTED","access_key":"REDACTED","publicKey":"pk"}',
    ],
  ])('%s', (_name, input, expected) => {
    expect(maskBodySecrets(input, bodyNames)).toBe(expected);
    expect(maskBodySecrets(JSON.parse(input) as JsonValue, bodyNames)).toEqual(JSON.parse(expected));
  });

  it('an access_key query parameter', () => {
    expect(urls.redact('https://api.example/check?access_key=SECRET-K7&fields=ip')).toBe(
      'https://api.example/check?access_key=REDACTED&fields=ip',
    );
  });
});

describe('secrets grouped under a plural name', () => {
  it.each<[string, string, string]>([
    [
      'opaque tokens under tokens',
      '{"tokens":{"access":"SECRET-P1","refresh":"SECRET-P2"},"user":"bob"}',
      '{"tokens":"REDACTED","user":"bob"}',
    ],
    [
      'a credential object',
      '{"credentials":{"id":"SECRET-P3","value":"SECRET-P4"},"aws_credentials":["SECRET-P5"]}',
      '{"credentials":"REDACTED","aws_credentials":"REDACTED"}',
    ],
    [
      'client_secrets and api_keys',
      '{"client_secrets":{"web":"SECRET-P6"},"api_keys":["SECRET-P7"]}',
      '{"client_secrets":"REDACTED","api_keys":"REDACTED"}',
    ],
    [
      'a number of six digits or more under a plural other than tokens: a numeric password',
      '{"passwords":12345678,"a":{"client_secrets":-123456},"b":{"api_keys":100000},"tokens":12345678}',
      '{"passwords":"REDACTED","a":{"client_secrets":"REDACTED"},"b":{"api_keys":"REDACTED"},"tokens":12345678}',
    ],
    [
      'the same integer written with a fraction or an exponent, as a parser reads it',
      '{"passwords":12345678.0,"a":{"credentials":1.2345678e7},"b":{"secrets":123456E0},"c":{"api_keys":99999.5}}',
      '{"passwords":"REDACTED","a":{"credentials":"REDACTED"},"b":{"secrets":"REDACTED"},"c":{"api_keys":99999.5}}',
    ],
  ])('%s', (_name, input, expected) => {
    expect(maskBodySecrets(input, bodyNames)).toBe(expected);
    expect(maskBodySecrets(JSON.parse(input) as JsonValue, bodyNames)).toEqual(JSON.parse(expected));
  });

  it.each<[string, string]>([
    // A session object is ordinary data; its id is no credential by that name.
    ['a session id', '{"session":{"id":"s_123","lang":"de"}}'],
    ['counts', '{"tokens":1200,"num_secrets":3,"usage":{"max_tokens":5,"total_tokens":30}}'],
    [
      'counts up to five digits, and any under tokens',
      '{"tokens":1048576,"num_secrets":99999,"passwords":-12,"credentials":2.5,"usage":{"max_tokens":128000}}',
    ],
  ])('%s stay exactly as sent', (_name, input) => {
    expect(maskBodySecrets(input, bodyNames)).toBe(input);
    expect(maskBodySecrets(JSON.parse(input) as JsonValue, bodyNames)).toEqual(JSON.parse(input));
  });
});

describe('private JSON Web Keys', () => {
  it.each<[string, string, string]>([
    [
      "an RSA key set's private members",
      '{"keys":[{"kty":"RSA","kid":"k1","n":"pub-n","e":"AQAB","d":"SECRET-J1","p":"SECRET-J2","q":"SECRET-J3","dp":"SECRET-J4","dq":"SECRET-J5","qi":"SECRET-J6"}]}',
      '{"keys":[{"kty":"RSA","kid":"k1","n":"pub-n","e":"AQAB","d":"REDACTED","p":"REDACTED","q":"REDACTED","dp":"REDACTED","dq":"REDACTED","qi":"REDACTED"}]}',
    ],
    [
      "WebCrypto's exports, kty after the private members: a symmetric key, an EC key",
      '[{"alg":"HS256","ext":true,"k":"SECRET-J7","key_ops":["sign"],"kty":"oct"},{"crv":"P-256","d":"SECRET-J8","ext":true,"kty":"EC","x":"px","y":"py"}]',
      '[{"alg":"HS256","ext":true,"k":"REDACTED","key_ops":["sign"],"kty":"oct"},{"crv":"P-256","d":"REDACTED","ext":true,"kty":"EC","x":"px","y":"py"}]',
    ],
    [
      'a key among other objects whose d, p and q are data',
      '{"d":"2024-01-01","q":"shoes","jwk":{"kty":"EC","d":"SECRET-J9","oth":[{"r":"SECRET-J10"}]},"p":{"d":"x"}}',
      '{"d":"2024-01-01","q":"shoes","jwk":{"kty":"EC","d":"REDACTED","oth":"REDACTED"},"p":{"d":"x"}}',
    ],
    [
      'a key the service cut',
      '{"keys":[{"kty":"RSA","n":"pub","d":"SECRET-J11...[truncated]',
      '{"keys":[{"kty":"RSA","n":"pub","d":"REDACTED"...[truncated]',
    ],
    [
      'member names written with escapes, as the JSON text masker reads them',
      '{"keys":[{"k\\u0074y":"RSA","n":"pub","\\u0064":"SECRET-J12"},{"kty":"oct","\\u006b":"SECRET-J13"}]}',
      '{"keys":[{"k\\u0074y":"RSA","n":"pub","\\u0064":"REDACTED"},{"kty":"oct","\\u006b":"REDACTED"}]}',
    ],
  ])('%s', (_name, input, expected) => {
    expect(maskBodySecrets(input, bodyNames)).toBe(expected);
    if (!input.endsWith('...[truncated]'))
      expect(maskBodySecrets(JSON.parse(input) as JsonValue, bodyNames)).toEqual(JSON.parse(expected));
  });

  it.each<[string, string]>([
    ['one-letter members of no key', '{"d":"2024-01-01","q":"shoes","k":3,"p":{"dp":1}}'],
    ['a public key set', '{"keys":[{"kty":"RSA","use":"sig","kid":"k1","n":"pub-n","e":"AQAB"}]}'],
  ])('%s stay exactly as sent', (_name, input) => {
    expect(maskBodySecrets(input, bodyNames)).toBe(input);
    expect(maskBodySecrets(JSON.parse(input) as JsonValue, bodyNames)).toEqual(JSON.parse(input));
  });

  it('hostile keys map (run, not timed)', () => {
    // Unclosed objects and values, 200,000 characters each: one pass reads them.
    for (const body of [
      '{"kty":"x","d":"a",'.repeat(10_000),
      '{"kty":"x","d":{'.repeat(12_000),
      '[' + '{"kty":'.repeat(25_000),
      '{"kty":"x"' + ',"d":1'.repeat(100_000) + '}',
      '{"d":"' + '\\"'.repeat(60_000) + '","kty":"RSA"}',
    ]) {
      const masked = maskBodySecrets(body, bodyNames);
      expect(masked).toBeTypeOf('string');
    }
  });
});

describe('error codes under code and key', () => {
  it.each<[string, string, string]>([
    [
      "OAuth's error answer keeps its code",
      '{"error":{"code":"invalid_grant","message":"expired"}}',
      '{"error":{"code":"invalid_grant","message":"expired"}}',
    ],
    [
      'upper-case codes, numbers, JSON-RPC',
      '{"code":"RATE_LIMITED","a":{"code":404},"b":{"code":-32600},"c":{"code":"ERR_429"}}',
      '{"code":"RATE_LIMITED","a":{"code":404},"b":{"code":-32600},"c":{"code":"ERR_429"}}',
    ],
    [
      'PascalCase and path-like codes, a field key',
      '{"Code":"AccessDenied","d":{"code":"auth/invalid-email"},"errors":[{"key":"email"}]}',
      '{"Code":"AccessDenied","d":{"code":"auth/invalid-email"},"errors":[{"key":"email"}]}',
    ],
    // What is no word is masked: when in doubt, mask.
    ['an MFA code', '{"code":"123456","remember":true}', '{"code":"REDACTED","remember":true}'],
    ['a numeric OTP', '{"code":123456}', '{"code":"REDACTED"}'],
    [
      "RFC 6749's authorization code",
      '{"grant_type":"authorization_code","code":"SplxlOBeZQQYbYS6WxSbIA"}',
      '{"grant_type":"authorization_code","code":"REDACTED"}',
    ],
    ['a grouped recovery code', '{"code":"ABCD-EFGH"}', '{"code":"REDACTED"}'],
    [
      'API keys',
      '{"key":"AIzaSyD-SECRET","k":{"key":"sk_live_4eC39HqLyjWDarjtT1zdp7dc"},"h":{"key":"d41d8cd98f00b204e9800998ecf8427e"}}',
      '{"key":"REDACTED","k":{"key":"REDACTED"},"h":{"key":"REDACTED"}}',
    ],
    ['a code cut short', '{"code":"invalid_gr...[truncated]', '{"code":"REDACTED"...[truncated]'],
    ['a numeric code cut short', '{"code":123...[truncated]', '{"code":"REDACTED"...[truncated]'],
    ['an object under code', '{"code":{"value":"x"}}', '{"code":"REDACTED"}'],
    // Random letters pass the shape of words: a letter-only key, a Steam Guard code, a key whose
    // random part has no digit, a recovery code of a word and five digits.
    [
      'letters that are no words',
      '{"key":"qwrtzpkbvnxlsdfg","a":{"code":"FKXPR"},"b":{"key":"live_abcdefghijklmnop"},"c":{"code":"abcde-12345"}}',
      '{"key":"REDACTED","a":{"code":"REDACTED"},"b":{"key":"REDACTED"},"c":{"code":"REDACTED"}}',
    ],
    [
      'a long random word',
      '{"key":"pk_aeioubaeioubaeioubaeiou","code":"Xaeiouaeiouaeiouae"}',
      '{"key":"REDACTED","code":"REDACTED"}',
    ],
    [
      'long words of real codes are kept',
      '{"a":{"code":"UNAUTHENTICATED"},"b":{"code":"ECONNRESET"},"c":{"code":"temporarily_unavailable"},"d":{"Code":"InvalidParameterCombination"},"e":{"code":"unsupported_grant_type"}}',
      '{"a":{"code":"UNAUTHENTICATED"},"b":{"code":"ECONNRESET"},"c":{"code":"temporarily_unavailable"},"d":{"Code":"InvalidParameterCombination"},"e":{"code":"unsupported_grant_type"}}',
    ],
  ])('%s', (_name, input, expected) => {
    expect(maskBodySecrets(input, bodyNames)).toBe(expected);
    if (!input.endsWith('...[truncated]'))
      expect(maskBodySecrets(JSON.parse(input) as JsonValue, bodyNames)).toEqual(JSON.parse(expected));
  });

  it('a code in a query or a form stays masked whatever it reads as', () => {
    expect(urls.redact('https://app.example/cb?code=invalid_grant&state=ok')).toBe(
      'https://app.example/cb?code=REDACTED&state=ok',
    );
    expect(maskBodySecrets('grant_type=authorization_code&code=abc', bodyNames)).toBe(
      'grant_type=authorization_code&code=REDACTED',
    );
  });
});

describe("credentials in an agent's code", () => {
  const code = (c: string): string => {
    const record = mapper.map(envelopeOf('api_call', 'control', { code: c, status: 200 }), CTX, 1)!;
    return (record.body as { code: string }).code;
  };
  it.each<[string, string, string]>([
    ['page.fill', "await page.fill('#password', 'SECRET-C1');", "await page.fill('#password', 'REDACTED');"],
    [
      'page.type with an OTP field',
      'page.type("input[name=otp]", "SECRET-C2")',
      'page.type("input[name=otp]", "REDACTED")',
    ],
    [
      'a locator',
      'await page.locator(\'#api-key\').fill("SECRET-C3")',
      'await page.locator(\'#api-key\').fill("REDACTED")',
    ],
    [
      'a chain over lines, a template literal and options',
      "await page.getByLabel('Password')\n  .pressSequentially(`SECRET-C4`, { delay: 50 });",
      "await page.getByLabel('Password')\n  .pressSequentially(`REDACTED`, { delay: 50 });",
    ],
    [
      "Python's Playwright and Selenium",
      'page.get_by_placeholder("Your passcode").fill("SECRET-C5")\ndriver.find_element(By.NAME, "pwd").send_keys("SECRET-C6")',
      'page.get_by_placeholder("Your passcode").fill("REDACTED")\ndriver.find_element(By.NAME, "pwd").send_keys("REDACTED")',
    ],
    [
      'a value set from a script',
      "await page.evaluate(() => { document.querySelector('#password').value = 'SECRET-C12'; });\nawait page.$eval('input[name=otp]', (el) => (el.value = \"SECRET-C13\"));",
      "await page.evaluate(() => { document.querySelector('#password').value = 'REDACTED'; });\nawait page.$eval('input[name=otp]', (el) => (el.value = \"REDACTED\"));",
    ],
    [
      "Python's keyword arguments",
      'page.fill(selector="#password", value="SECRET-C10")\npage.locator("#otp").fill(value = \'SECRET-C11\', timeout=500)',
      'page.fill(selector="#password", value="REDACTED")\npage.locator("#otp").fill(value = \'REDACTED\', timeout=500)',
    ],
    [
      'the other fields of the same login stay readable',
      "await page.fill('#email', 'bob@example.com');\nawait page.fill('#password', 'SECRET-C7');\nawait page.click('text=Sign in');",
      "await page.fill('#email', 'bob@example.com');\nawait page.fill('#password', 'REDACTED');\nawait page.click('text=Sign in');",
    ],
    [
      'a locator held in a variable',
      "const input = page.locator('#password');\nawait input.fill('SECRET-C14');\nlet box = page.getByLabel('API key'); await box.first().pressSequentially(\"SECRET-C15\");",
      "const input = page.locator('#password');\nawait input.fill('REDACTED');\nlet box = page.getByLabel('API key'); await box.first().pressSequentially(\"REDACTED\");",
    ],
    [
      'a page object holding the locator',
      "this.box = page.locator('#password');\n}\nasync login() {\n  await this.box.fill('SECRET-C20');",
      "this.box = page.locator('#password');\n}\nasync login() {\n  await this.box.fill('REDACTED');",
    ],
    [
      "Python's locator in a variable, a chain over lines",
      'field = page\n    .locator("#passcode")\nfield.fill("SECRET-C16")\nemail = page.locator("#email")\nemail.fill("bob@example.com")',
      'field = page\n    .locator("#passcode")\nfield.fill("REDACTED")\nemail = page.locator("#email")\nemail.fill("bob@example.com")',
    ],
    [
      'fields named by a short word: a PIN, a login-pw',
      "await page.fill('#pin', 'SECRET-C17');\nawait page.locator('#login-pw').fill('SECRET-C18');\npage.fill('input[name=\"user_pin\"]', 'SECRET-C19')",
      "await page.fill('#pin', 'REDACTED');\nawait page.locator('#login-pw').fill('REDACTED');\npage.fill('input[name=\"user_pin\"]', 'REDACTED')",
    ],
    [
      'code the service cut inside the value',
      "page.fill('#password', 'SECRET-C8...[truncated]",
      "page.fill('#password', 'REDACTED...[truncated]",
    ],
  ])('%s', (_name, input, expected) => {
    expect(code(input)).toBe(expected);
  });

  it.each<[string, string]>([
    [
      'fields named plainly',
      "await page.fill('#search', 'shoes'); await page.locator('#email').type('bob@example.com')",
    ],
    ['a value that is no literal', "await page.fill('#password', process.env.PASSWORD)"],
    ['a keyword argument that is no literal', 'page.fill("#password", value=os.environ["PW"])'],
    [
      'a value compared, or set from a variable',
      "if (document.querySelector('#password').value === '') el.value = pw;",
    ],
    ['keystrokes without a field', "await page.keyboard.type('hello')"],
    [
      'fields whose name only contains a short secret word',
      "await page.fill('#pinned-note', 'x'); await page.locator('.spinner input').fill('3'); await page.fill('#pwa-name', 'app')",
    ],
    [
      'a variable bound to a plain field',
      "const search = page.locator('#search');\nawait search.fill('shoes');\nconst token = 'x';",
    ],
  ])('%s stay exactly as sent', (_name, input) => {
    expect(code(input)).toBe(input);
  });

  it('is counted as api_call_code redaction', () => {
    const facts: unknown[] = [];
    const counting = createMapper(defaultMappingOptions, { emit: (f) => void facts.push(f) });
    counting.map(envelopeOf('api_call', 'control', { code: "page.fill('#password', 'SECRET-C9')" }), CTX, 1);
    expect(facts).toEqual([{ f: 'values_redacted', type: 'api_call', kind: 'api_call_code', count: 1 }]);
  });

  it('drop_api_call_code still replaces the whole code', () => {
    const dropping = createMapper({ ...defaultMappingOptions, redaction: { ...d, dropApiCallCode: true } });
    const record = dropping.map(envelopeOf('api_call', 'control', { code: "page.fill('#q', 'x')" }), CTX, 1)!;
    expect(record.body).toMatchObject({ code: 'REDACTED' });
  });

  it('hostile code maps (run, not timed)', () => {
    for (const c of [
      ".fill(\\'".repeat(25_000),
      ".fill('#password', '".repeat(12_000),
      '.fill(x,'.repeat(25_000),
      '.fill(a='.repeat(25_000),
      '.fill(' + 'a'.repeat(200_000) + ' =',
      '.fill(' + '('.repeat(200_000),
      'a\n'.repeat(100_000) + ".fill('x')",
      'a='.repeat(100_000) + ".fill('x')",
      'a=\n.'.repeat(50_000) + ".fill('x')",
      'a=('.repeat(66_000) + ".fill('x')",
    ])
      expect(code(c)).toBeTypeOf('string');
  });

  it('reads each part of the code for field names about once, however many calls it holds', () => {
    // Each call's field was read from up to 300 characters back: 8 KB of short calls whose literal
    // lies in a field with no secret name was 75,000 name lookups (60 ms of the main thread).
    let lookups = 0;
    const counting = { matches: (name: string): boolean => (lookups++, bodyNames.matches(name)) };
    for (const c of [
      'a.fill(`'.repeat(1024),
      'a.fill(x,`'.repeat(820),
      "p.fill('a', 'b')".repeat(512),
      // Bindings too: each is read once, not once per call.
      "a = p.locator('#q'); a.fill('b');".repeat(256),
    ]) {
      lookups = 0;
      expect(maskAgentCode(c, counting)).toBeNull();
      expect(lookups).toBeLessThan(c.length);
    }
    // The field is still the whole statement when one call holds it.
    expect(
      maskAgentCode(`await page.getByLabel('Password', { exact: true })${' '.repeat(200)}.fill('x')`, counting),
    ).toContain("'REDACTED'");
  });
});
