// Session ids and pool references where they enter: the file, BRIDGE_SESSIONS, the control API body.
// A dot-segment (`.`, `..`) would be removed by the URL parser, turning a session's stream into a
// request for another path of the service with the key.
import { describe, expect, it } from 'vitest';
import { parseSessionList, parseSessionSpec, validPoolRef, validSessionId } from '../../../src/config/sessions.js';

describe('validSessionId', () => {
  it.each([
    ['.', false],
    ['..', false],
    ['...', false],
    ['', false],
    ['a/b', false],
    ['a'.repeat(129), false],
    ['a', true],
    ['.a', true],
    ['a..b', true],
    ['..a', true],
    ['s_1-x~y', true],
    ['a'.repeat(128), true],
  ])('%j → %s', (id, ok) => {
    expect(validSessionId(id)).toBe(ok);
  });
});

describe('dot-only ids and pools are rejected everywhere they enter', () => {
  it.each(['.', '..', '....'])('%j', (id) => {
    expect(() => parseSessionSpec({ id }, 'sessions[0]')).toThrow(/not dots only/);
    expect(() => parseSessionList(`ok,${id}`, 'BRIDGE_SESSIONS')).toThrow(/not a valid session id/);
    expect(() => parseSessionSpec({ id: 'ok', pool: id }, 'sessions[0]')).toThrow(/pool.*not dots only/);
    expect(validPoolRef(id)).toBe(false);
  });
  it('an ordinary pool name passes', () => {
    expect(parseSessionSpec({ id: 'ok', pool: 'my pool.v2' }, 'body').pool).toBe('my pool.v2');
  });
});
