// A configured session reference that is a name, told from an id by the session_id the service
// answers for it (upstream/session-ref.ts).
import { describe, expect, it } from 'vitest';
import { namedSession, sessionNameWarning } from '../../../src/upstream/session-ref.js';

describe('namedSession', () => {
  const rows: Array<[string, unknown, string | undefined]> = [
    ['nightly', { session_id: 'htzv5orfit78e1m2biiifpbv', name: 'nightly' }, 'htzv5orfit78e1m2biiifpbv'],
    ['htzv5orfit78e1m2biiifpbv', { session_id: 'htzv5orfit78e1m2biiifpbv' }, undefined],
    ['nightly', { session_id: '' }, undefined],
    ['nightly', { session_id: 42 }, undefined],
    ['nightly', {}, undefined],
    ['nightly', null, undefined],
    ['nightly', ['session_id'], undefined],
  ];
  for (const [ref, body, want] of rows)
    it(`${ref} answered ${JSON.stringify(body)} → ${String(want)}`, () => expect(namedSession(ref, body)).toBe(want));

  it('the warning names both and says what to configure', () => {
    const w = sessionNameWarning('nightly', 'abc');
    expect(w).toContain('"nightly" is the name of session abc');
    expect(w).toContain('configure the id');
  });
});
