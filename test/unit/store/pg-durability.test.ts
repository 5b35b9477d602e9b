// When the shared store's `synchronous_commit` is said to lose acknowledged commits: only `off`.
// `local`, `remote_write`, `on` and `remote_apply` all write the commit's log locally before the
// answer, which is what survives a crash or an immediate restart of the database.
import { describe, expect, it } from 'vitest';
import { durabilityWarning } from '../../../src/store/pg-durability.js';

describe('durabilityWarning', () => {
  it.each([
    ['off', true],
    ['local', false],
    ['remote_write', false],
    ['on', false],
    ['remote_apply', false],
  ])('synchronous_commit = %s → warned: %s', (setting, warned) => {
    const text = durabilityWarning(setting);
    expect(text !== undefined).toBe(warned);
    if (text !== undefined) {
      expect(text).toContain('synchronous_commit = off');
      expect(text).toContain('SET synchronous_commit = on');
    }
  });
});
