// The API key from BROWSER_API_KEY_FILE, read again after every 401: what a file that is no key
// file gives (upstream/api-key.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApiKeyProvider } from '../../../src/upstream/api-key.js';

const dir = mkdtempSync(join(tmpdir(), 'bridge-key-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('API key file', () => {
  it.each([
    ['a key with its line end', file('key', 'sk-live-1\n'), 'sk-live-1'],
    ['a file that never ends', '/dev/zero', /cannot read API key file \/dev\/zero: EFBIG/],
    ['a log file named by mistake', file('big', 'x'.repeat(65 * 1024)), /cannot read API key file .*big: EFBIG/],
    ['a missing file', join(dir, 'absent'), /cannot read API key file .*absent: ENOENT/],
  ])('%s', (_, path, expected) => {
    const keys = createApiKeyProvider({ apiKeyFile: path });
    if (typeof expected === 'string') expect(keys.get()).toBe(expected);
    else expect(() => keys.get()).toThrow(expected);
  });

  it('reads the file again after a 401: a rotated key is taken, a file swapped for a huge one fails with a line', () => {
    const path = file('rotated', 'old-key');
    const keys = createApiKeyProvider({ apiKeyFile: path });
    expect(keys.get()).toBe('old-key');
    writeFileSync(path, 'new-key\n');
    keys.invalidate();
    expect(keys.get()).toBe('new-key');
    writeFileSync(path, 'z'.repeat(100 * 1024));
    keys.invalidate();
    expect(() => keys.get()).toThrow(/EFBIG/);
  });
});
