import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stateDirWriteProblem, stateFilesProblem } from '../../../src/cli/state-dir.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-dir-test-'));
});
afterEach(() => {
  chmodSync(dir, 0o700);
  rmSync(dir, { recursive: true, force: true });
});

// root writes everywhere: the permission cases can only fail for another user.
const asRoot = process.getuid?.() === 0;

describe('stateDirWriteProblem', () => {
  it('a writable directory, or one that can be created, is no problem (and is created as run would)', () => {
    expect(stateDirWriteProblem(dir)).toBeUndefined();
    expect(stateDirWriteProblem(join(dir, 'a', 'b'))).toBeUndefined();
  });

  it('a path through a file says so in one sentence', () => {
    writeFileSync(join(dir, 'f'), '');
    expect(stateDirWriteProblem(join(dir, 'f', 'state'))).toBe(
      `the state directory ${join(dir, 'f', 'state')} cannot exist: a part of its path is a file, not a directory`,
    );
    expect(stateDirWriteProblem(join(dir, 'f'))).toBe(
      `the state directory ${join(dir, 'f')} is a file, not a directory`,
    );
  });

  it.skipIf(asRoot)(
    'a read-only directory names the user and what to do, not SQLite\'s "unable to open database file"',
    () => {
      chmodSync(dir, 0o500);
      expect(stateDirWriteProblem(dir)).toMatch(
        new RegExp(
          `^the state directory ${dir} cannot be created or written by this user \\(uid \\d+\\): permission denied on ${dir}; set BRIDGE_STATE_DIR`,
        ),
      );
    },
  );

  it.skipIf(asRoot)('a parent this user cannot enter is the same sentence, not a stack trace', () => {
    chmodSync(dir, 0o000);
    expect(stateDirWriteProblem(join(dir, 'state'))).toMatch(
      /cannot be created or written by this user \(uid \d+\): permission denied/,
    );
  });
});

/** Makes `file` unwritable for this user: mode 0400, or for root (who writes any mode) the immutable flag. */
function unwritable(file: string): boolean {
  if (!asRoot) {
    chmodSync(file, 0o400);
    return true;
  }
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
function writable(file: string): void {
  if (asRoot) execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
  else chmodSync(file, 0o600);
}
const canMakeUnwritable = (() => {
  const d = mkdtempSync(join(tmpdir(), 'state-dir-probe-'));
  const f = join(d, 'f');
  writeFileSync(f, '');
  const ok = unwritable(f);
  if (ok) writable(f);
  rmSync(d, { recursive: true, force: true });
  return ok;
})();

describe.skipIf(!canMakeUnwritable)('stateFilesProblem (as root: needs chattr)', () => {
  // The rollback journals are left by a kill -9 in a write transaction (the page-size rebuild's
  // VACUUM, the lock's transaction): SQLite must write them at the next open to roll it back, and
  // said only "unable to open database file" when it could not.
  it.each(['bridge.db', 'bridge.db-wal', 'bridge.db-shm', 'bridge.db-journal', 'bridge.lock', 'bridge.lock-journal'])(
    '%s unwritable: named, with what to do',
    (name) => {
      const file = join(dir, name);
      writeFileSync(file, '');
      expect(stateFilesProblem(dir)).toBeUndefined();
      expect(unwritable(file)).toBe(true);
      try {
        expect(stateFilesProblem(dir)).toMatch(
          new RegExp(`^the state file ${file} is read-only for this user \\(uid \\d+\\) \\(mode 0[0-7]{3}`),
        );
      } finally {
        writable(file);
      }
    },
  );
});
