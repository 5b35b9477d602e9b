// JSON a page printed to the console (mask_body_secrets): a debugging print of a session object in
// `text` or a later argument has its secret-named members masked as a response body's are; prose
// and what is not secret stay as printed.
import { describe, expect, it } from 'vitest';
import { defaultMappingOptions, parseMappingOptions } from '../../../src/config/mapping-section.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { CTX, envelopeOf } from './helpers.js';

const mapper = createMapper(defaultMappingOptions);
const body = (type: string, data: Record<string, unknown>, m = mapper): unknown =>
  m.map(envelopeOf(type, 'console', data), CTX, 1)!.body;

describe('JSON printed to the console', () => {
  it.each<[string, string, Record<string, unknown>, Record<string, unknown>]>([
    [
      'a session printed whole',
      'console_log',
      { text: '{"user":"alice","access_token":"SECRET-A","expires_in":3600}' },
      { text: '{"user":"alice","access_token":"REDACTED","expires_in":3600}' },
    ],
    [
      'as a later argument, pretty-printed',
      'console_log',
      { text: 'session', args: ['session', '{\n  "user": "alice",\n  "refresh_token": "SECRET-R"\n}'] },
      { text: 'session', args: ['session', '{\n  "user": "alice",\n  "refresh_token": "REDACTED"\n}'] },
    ],
    [
      'in an error message',
      'console_error',
      { text: 'login failed {"password":"SECRET-P","user":"alice"}', level: 'error' },
      { text: 'login failed {"password":"REDACTED","user":"alice"}', level: 'error' },
    ],
  ])('%s', (_, type, data, expected) => {
    const got = body(type, data);
    expect(got).toMatchObject(expected);
    expect(JSON.stringify(got)).not.toMatch(/SECRET-/);
  });

  it.each([
    'token=abc is the query we sent',
    'the "code": field was missing',
    '{"user":"alice","tokenizer":"bpe","max_tokens":5}',
  ])('keeps %j', (text) => {
    expect(body('console_log', { text, args: [text] })).toMatchObject({ text, args: [text] });
  });

  it('mask_body_secrets: false leaves them', () => {
    const off = createMapper(parseMappingOptions({ redaction: { mask_body_secrets: false } }, 'mapping'));
    const text = '{"access_token":"t"}';
    expect(body('console_log', { text }, off)).toMatchObject({ text });
  });
});
