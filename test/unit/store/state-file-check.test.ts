// The state database's identity (store/state-file-check.ts) against real files in a temporary
// directory: present, deleted, replaced; checked at most once a second, and sticky once found.
import { mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateFileCheck } from '../../../src/store/state-file-check.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'state-file-'));
  file = join(dir, 'bridge.db');
  writeFileSync(file, 'x');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('StateFileCheck', () => {
  it('passes while the file is the one opened', () => {
    const c = new StateFileCheck(file);
    expect(() => c.assertPresent(1_000)).not.toThrow();
    writeFileSync(file, 'written in place');
    expect(() => c.assertPresent(5_000)).not.toThrow();
    expect(c.found).toBeUndefined();
  });

  it('a deleted file fails every later write with STATE_FILE_GONE, even once a new one is there', () => {
    const c = new StateFileCheck(file);
    c.assertPresent(1_000);
    unlinkSync(file);
    expect(() => c.assertPresent(2_000)).toThrow(expect.objectContaining({ code: 'STATE_FILE_GONE' }) as Error);
    writeFileSync(file, 'a new file at the same path');
    expect(() => c.assertPresent(9_000)).toThrow(/was deleted while the bridge runs/);
    expect(c.found).toMatch(/was deleted/);
  });

  it('a file replaced at the same path is found', () => {
    const c = new StateFileCheck(file);
    writeFileSync(join(dir, 'other'), 'y');
    renameSync(join(dir, 'other'), file);
    expect(() => c.assertPresent(1_000)).toThrow(/was replaced while the bridge runs/);
  });

  it('looks at most once a second: a deletion shows at the first check after that', () => {
    const c = new StateFileCheck(file);
    c.assertPresent(1_000);
    unlinkSync(file);
    expect(() => c.assertPresent(1_500)).not.toThrow();
    expect(() => c.assertPresent(2_000)).toThrow(/deleted/);
  });
});
