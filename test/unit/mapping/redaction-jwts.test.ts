// Bare JWTs (mask_jwts): a token that sits under no secret-named key or parameter — an id token in
// console text, `{"tokens":{"access":…}}`, a password-reset link's path, a GraphQL variable named
// `input`, an agent's code — is masked wherever a string holds it, in the body and so in every
// attribute promoted from it. What only resembles one (base64 JSON without the dots, `eyJ` in
// prose) stays as sent.
import { describe, expect, it } from 'vitest';
import { defaultMappingOptions, parseMappingOptions } from '../../../src/config/mapping-section.js';
import { maskJwts } from '../../../src/mapping/mask-jwts.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { createTailView } from '../../../src/cli/tail-view.js';
import { CTX, envelopeOf } from './helpers.js';

const b64url = (s: string): string => Buffer.from(s).toString('base64url');
const JWT = `${b64url('{"alg":"RS256","kid":"k1"}')}.${b64url('{"sub":"alice"}')}.SECRET-sig_x-y`;
/** An encrypted token (JWE, RFC 7516): five parts, the key part empty with `dir`. */
const JWE = `${b64url('{"alg":"dir","enc":"A256GCM"}')}..iv-SECRET.SECRET-ciphertext.tag`;
const mapper = createMapper(defaultMappingOptions);

describe('maskJwts', () => {
  it.each<[string, string, string]>([
    ['a token in prose', `id token ${JWT} issued`, 'id token REDACTED issued'],
    ['the sentence goes on after it', `token: ${JWT}.`, 'token: REDACTED.'],
    ['an encrypted one', `jwe=${JWE}`, 'jwe=REDACTED'],
    [
      'a path segment',
      `https://a.example/reset/${JWT}?tokenizer=bpe`,
      'https://a.example/reset/REDACTED?tokenizer=bpe',
    ],
    ['quoted in JSON text', `{"tokens":{"access":"${JWT}","n":1}}`, '{"tokens":{"access":"REDACTED","n":1}}'],
    ['two of them', `${JWT} ${JWT}`, 'REDACTED REDACTED'],
    ['an alg none token (no signature)', `t=${JWT.slice(0, JWT.lastIndexOf('.') + 1)}&x=1`, 't=REDACTED&x=1'],
    // After an escape whose last letter is base64url: a hex digit of %2F, %20, %3D; a JSON \n.
    ['after a percent-escaped slash', `next=%2Freset%2F${JWT}&a=1`, 'next=%2Freset%2FREDACTED&a=1'],
    ['after a percent-escaped space', `Bearer%20${JWT}`, 'Bearer%20REDACTED'],
    ['after a percent-escaped =', `%3Ftoken%3D${JWT}`, '%3Ftoken%3DREDACTED'],
    ['after a JSON escape', `"line\\n${JWT}"`, '"line\\nREDACTED"'],
  ])('%s', (_, text, expected) => expect(maskJwts(text)).toBe(expected));

  it.each<[string, string]>([
    ['base64 JSON without dots (a data: URL)', `data:application/json;base64,${b64url('{"a":1,"b":[2]}')}`],
    ['eyJ inside a longer base64 run', `x${JWT}`],
    ['eyJ in prose', 'eyJ. is not a token. eyJhbGciOiJ.x'],
    ['one dot only', `${b64url('{"alg":"RS256","kid":"k1"}')}.abc`],
    ['nothing like it', 'tokenizer=bpe&X-Token-Count=42'],
  ])('keeps %s', (_, text) => expect(maskJwts(text)).toBe(text));
});

describe('bare JWTs in records', () => {
  it.each<[string, string, string, Record<string, unknown>]>([
    ['console text and args', 'console_log', 'console', { text: `signed in ${JWT}`, args: [`signed in ${JWT}`] }],
    [
      'a request body under names that are no secret',
      'network_request',
      'network',
      {
        url: 'https://api.example/graphql',
        method: 'POST',
        post_data: JSON.stringify({ query: 'mutation M($input: In!) { m(input: $input) }', variables: { input: JWT } }),
      },
    ],
    [
      'a token answer',
      'network_response',
      'network',
      {
        url: 'https://idp.example/token',
        status: 200,
        body: JSON.stringify({ tokens: { access: JWT, refresh: JWE } }),
      },
    ],
    ['a reset link', 'page_navigation', 'page', { url: `https://app.example/reset/${JWT}` }],
    [
      'an agent-sent command of a newer service',
      'cdp_command',
      'control',
      { method: 'Runtime.evaluate', expression: `localStorage.t = '${JWT}'` },
    ],
    [
      "an agent's code",
      'api_call',
      'control',
      {
        request_id: 'r',
        operation_id: 'exec',
        status: 200,
        duration_ms: 1,
        code: `await page.setExtraHTTPHeaders({ a: 'Bearer ${JWT}' })`,
      },
    ],
  ])('%s', (_, type, category, data) => {
    const record = mapper.map(envelopeOf(type, category, data), CTX, 1)!;
    const text = JSON.stringify(record);
    expect(text).not.toMatch(/SECRET-/);
    expect(text).toContain('REDACTED');
  });

  it('source metadata, as attributes and as tail shows the envelope', () => {
    const source = { kind: 'cdp', metadata: { note: `bearer ${JWT}`, nested: { t: JWT } } };
    const env = { ...envelopeOf('console_log', 'console', { text: 'x' }) };
    env.event = { ...env.event, source };
    const record = mapper.map(env, CTX, 1)!;
    expect(record.attributes['browser.event.source.metadata.note']).toBe('bearer REDACTED');
    expect(JSON.stringify(record)).not.toMatch(/SECRET-/);
    expect(createTailView(defaultMappingOptions.redaction, true).json(env, JSON.stringify(env))).not.toMatch(/SECRET-/);
  });

  it('masks url.full and keeps the rest of the URL', () => {
    const record = mapper.map(
      envelopeOf('page_navigation', 'page', { url: `https://app.example/reset/${JWT}#x` }),
      CTX,
      1,
    )!;
    expect(record.attributes['url.full']).toBe('https://app.example/reset/REDACTED#x');
  });

  it('mask_jwts: false leaves them', () => {
    const off = createMapper(parseMappingOptions({ redaction: { mask_jwts: false } }, 'mapping'));
    const record = off.map(envelopeOf('console_log', 'console', { text: `t ${JWT}` }), CTX, 1)!;
    expect(record.body).toMatchObject({ text: `t ${JWT}` });
  });
});
