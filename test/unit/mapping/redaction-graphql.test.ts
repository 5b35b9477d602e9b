// GraphQL documents with their arguments inline (mask-graphql.ts): in a POST body's `query` member
// and a GET's `query` parameter, a string argument named like a secret is masked, the rest of the
// document kept. Variables are JSON and masked as bodies are (redaction-fields.test.ts for GET).
import { describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { maskGraphqlArguments } from '../../../src/mapping/mask-graphql.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { compileNameMatcher } from '../../../src/mapping/name-matcher.js';
import { CTX, envelopeOf } from './helpers.js';

const d = defaultMappingOptions.redaction;
const names = compileNameMatcher([...d.headers, ...d.queryParams]);
const mapper = createMapper(defaultMappingOptions);

describe('maskGraphqlArguments', () => {
  it.each<[string, string | null]>([
    [
      'mutation { login(user: "alice", password: "pw") { ok } }',
      'mutation { login(user: "alice", password: "REDACTED") { ok } }',
    ],
    [
      'mutation{refresh(input:{refreshToken:"r\\"t", n: 1}){ok}}',
      'mutation{refresh(input:{refreshToken:"REDACTED", n: 1}){ok}}',
    ],
    ['query { me(apiKey : "k") { id } }', 'query { me(apiKey : "REDACTED") { id } }'],
    ['query { search(text: "password: x", tokenizer: "bpe") { id } }', null],
    ['mutation { login(password: $password) { ok } }', null],
    ['query { me { id } }', null],
    // Block strings (§2.9.4), with their escaped triple quote, and one the cut ends inside.
    [
      'mutation { login(user: "a", password: """hunter2""") { ok } }',
      'mutation { login(user: "a", password: "REDACTED") { ok } }',
    ],
    [
      'mutation { login(password: """a\\"""b""", x: "y") { ok } }',
      'mutation { login(password: "REDACTED", x: "y") { ok } }',
    ],
    ['mutation { login(password: """hunter', 'mutation { login(password: "REDACTED"'],
    ['mutation { login(password: "hunter', 'mutation { login(password: "REDACTED"'],
    // Only a document is read: prose in a search API's `query` names no arguments.
    ['author: "bob" secret: "plans"', null],
    ['# c\n, { me(token: "t") { id } }', '# c\n, { me(token: "REDACTED") { id } }'],
    ['queryX(token: "t")', null],
  ])('%s', (doc, expected) => expect(maskGraphqlArguments(doc, names)).toBe(expected));

  // A run of name characters before `":` was tried from each of its positions: 200,000 of them
  // took over 60 s, past the test timeout; read once, it is a few milliseconds.
  const RUN = 'a'.repeat(200_000);
  it('a long run of name characters is read once (no quadratic retry)', () => {
    expect(maskGraphqlArguments(`{ ${RUN}": x, password: "pw" }`, names)).toBe(`{ ${RUN}": x, password: "REDACTED" }`);
  });

  it('the same run in a POST body and a URL maps (the event loop is not frozen)', () => {
    // The records are cut to the size limit: the masked argument comes first, the run after it.
    const post = `{"query":"{ me(token: \\"SECRET\\") { ${RUN}\\":\\"x\\" } }"}`;
    const body = mapper.map(
      envelopeOf('network_request', 'network', { url: 'https://a.example/graphql', method: 'POST', post_data: post }),
      CTX,
      1,
    )!.body as { post_data: string };
    expect(body.post_data.slice(0, 40)).toBe('{"query":"{ me(token: \\"REDACTED\\") { aa');
    const url = `https://a.example/graphql?query=%7B%20me(token%3A%22SECRET%22)%20%7B${RUN}%22%3A%22x%22%7D%7D`;
    const full = mapper.map(envelopeOf('network_request', 'network', { url, method: 'GET' }), CTX, 1)!.attributes[
      'url.full'
    ];
    const masked = `https://a.example/graphql?query=${encodeURIComponent('{ me(token:"REDACTED") {aa')}`;
    expect(String(full).slice(0, masked.length)).toBe(masked);
  });
});

describe('in records', () => {
  it('a POST body, other members and layout kept', () => {
    const post = JSON.stringify(
      { query: 'mutation { login(user: "alice", password: "SECRET-1") { ok } }', op: 'L' },
      null,
      1,
    );
    const record = mapper.map(
      envelopeOf('network_request', 'network', { url: 'https://a.example/graphql', method: 'POST', post_data: post }),
      CTX,
      1,
    )!;
    expect((record.body as { post_data: string }).post_data).toBe(
      JSON.stringify({ query: 'mutation { login(user: "alice", password: "REDACTED") { ok } }', op: 'L' }, null, 1),
    );
  });

  it.each([
    // The service's cut ends inside the document: masked as far as it goes.
    [
      '{"query":"mutation { login(password: \\"SECRET\\") { ok } xxx...[truncated]',
      '{"query":"mutation { login(password: \\"REDACTED\\") { ok } xxx...[truncated]',
    ],
    [
      '{"query":"mutation { login(password: \\"SECR...[truncated]',
      '{"query":"mutation { login(password: \\"REDACTED\\"...[truncated]',
    ],
  ])('a POST body cut inside its query: %s', (post, expected) => {
    const record = mapper.map(
      envelopeOf('network_request', 'network', { url: 'https://a.example/graphql', method: 'POST', post_data: post }),
      CTX,
      1,
    )!;
    expect((record.body as { post_data: string }).post_data).toBe(expected);
  });

  it("a GET's query parameter", () => {
    const q = (s: string): string => `https://a.example/graphql?query=${encodeURIComponent(s)}&op=L`;
    const record = mapper.map(
      envelopeOf('network_request', 'network', { url: q('{ me(token: "SECRET-2") { id } }'), method: 'GET' }),
      CTX,
      1,
    )!;
    expect(record.attributes['url.full']).toBe(q('{ me(token: "REDACTED") { id } }'));
  });
});
