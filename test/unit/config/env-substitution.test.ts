import { describe, expect, it } from 'vitest';
import { substituteEnv } from '../../../src/config/env-substitution.js';
import { ConfigError } from '../../../src/config/errors.js';

const env = { HOST: 'collector', PORT: '4318', EMPTY: '', BIG: '1048576', OFF: 'false', DOLLAR: '${env:HOST}' };

describe('${env:VAR} substitution', () => {
  it.each<[string, unknown, unknown]>([
    ['a whole-value reference', '${env:HOST}', 'collector'],
    ['the short form', '${HOST}', 'collector'],
    ['inside a longer string', 'http://${env:HOST}:${env:PORT}/v1/logs', 'http://collector:4318/v1/logs'],
    ['a whole-value number keeps its type', '${env:BIG}', 1048576],
    ['a whole-value boolean keeps its type', '${env:OFF}', false],
    ['inside a string it stays text', 'x${env:BIG}', 'x1048576'],
    ['a default for an unset variable', '${env:NOPE:-http://localhost:4318}', 'http://localhost:4318'],
    ['a default for an empty variable', '${env:EMPTY:-fallback}', 'fallback'],
    ['an explicit empty default', '${env:NOPE:-}', ''],
    ['the default is not used when set', '${env:HOST:-other}', 'collector'],
    ['$$ is a literal dollar', 'pa$$word', 'pa$word'],
    ['$$ escapes a reference', '$${env:HOST}', '${env:HOST}'],
    ['substituted text is not expanded again', '${env:DOLLAR}', '${env:HOST}'],
    ['a lone dollar stays', 'cost: $5', 'cost: $5'],
    ['numbers are left alone', 5, 5],
  ])('%s', (_name, input, expected) => {
    expect(substituteEnv(input, env)).toEqual(expected);
  });

  it('reaches every value of nested mappings and lists, never the keys', () => {
    const doc = {
      exporter: { endpoint: 'http://${env:HOST}:4318', headers: { '${env:HOST}': '${env:PORT}' } },
      sessions: ['a', { id: '${env:HOST}' }],
    };
    expect(substituteEnv(doc, env)).toEqual({
      exporter: { endpoint: 'http://collector:4318', headers: { '${env:HOST}': 4318 } },
      sessions: ['a', { id: 'collector' }],
    });
  });

  it.each<[string, unknown, string, RegExp]>([
    [
      'an unset variable without default',
      { upstream: { url: '${env:API_URL}' } },
      'upstream.url',
      /environment variable API_URL is not set/,
    ],
    ['an unset variable in a list', { sessions: ['a', '${env:S2}'] }, 'sessions[1]', /S2 is not set/],
    ['a malformed reference', { exporter: { endpoint: '${env:}' } }, 'exporter.endpoint', /not a valid reference/],
    ['another provider', { upstream: { api_key: '${file:/run/key}' } }, 'upstream.api_key', /not a valid reference/],
  ])('%s is one error naming the key', (_name, doc, key, message) => {
    try {
      substituteEnv(doc, env);
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).key).toBe(key);
      expect((err as ConfigError).message).toMatch(message);
    }
  });
});
