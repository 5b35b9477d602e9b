// The configuration file watch on a real directory: editors' rename-on-save, in-place writes, a
// Kubernetes-style symlink swap, and events that must not trigger a reload.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchConfigFile, type ConfigWatcher } from '../../../src/daemon/config-watcher.js';
import { silentLogger } from '../../../src/util/logger.js';

const DEBOUNCE = 100;
let dir: string;
let watcher: ConfigWatcher | undefined;
let calls: number;

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, DEBOUNCE * 4));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-watch-'));
  calls = 0;
});

afterEach(() => {
  watcher?.close();
  rmSync(dir, { recursive: true, force: true });
});

function watchFile(file: string): void {
  watcher = watchConfigFile(file, () => calls++, { log: silentLogger(), debounceMs: DEBOUNCE });
}

describe('config file watch', () => {
  it('hashes no more of a file than a reload reads: one change for a file that became too large, none after', async () => {
    const file = join(dir, 'bridge.yaml');
    writeFileSync(file, 'sessions: [a]\n');
    watchFile(file);
    // A log file written over it by mistake: the reload that follows says it is too large.
    writeFileSync(file, 'x'.repeat(5 * 1024 * 1024));
    await settle();
    expect(calls).toBe(1);
    // Still too large, other bytes, then swapped for a link to a file that never ends: nothing to reload,
    // and the watch neither hashes gigabytes nor stops the event loop doing so.
    writeFileSync(file, 'y'.repeat(5 * 1024 * 1024));
    await settle();
    rmSync(file);
    symlinkSync('/dev/zero', file);
    await settle();
    expect(calls).toBe(1);
  });

  it('sees rename-on-save and in-place writes, once per save, and only real changes', async () => {
    const file = join(dir, 'bridge.yaml');
    writeFileSync(file, 'sessions: [a]\n');
    watchFile(file);

    // vim/IDE style: write a temporary file, rename it over the original (a new inode).
    writeFileSync(`${file}.swp`, 'sessions: [a, b]\n');
    renameSync(`${file}.swp`, file);
    await settle();
    expect(calls).toBe(1);

    // Still watching after the inode changed; an in-place write made of several chunks is one change.
    writeFileSync(file, 'sessions: [a, b, c]\n');
    writeFileSync(file, 'sessions: [a, b, c, d]\n');
    await settle();
    expect(calls).toBe(2);

    // Same bytes again (touch, or an editor saving without changes), and another file in the directory.
    writeFileSync(file, 'sessions: [a, b, c, d]\n');
    writeFileSync(join(dir, 'other.txt'), 'x');
    await settle();
    expect(calls).toBe(2);

    // Deleted, then recreated with new content.
    rmSync(file);
    await settle();
    expect(calls).toBe(2);
    writeFileSync(file, 'sessions: []\n');
    await settle();
    expect(calls).toBe(3);
  });

  it('follows a Kubernetes ConfigMap update (the ..data symlink is swapped)', async () => {
    // Layout of a mounted ConfigMap: bridge.yaml -> ..data/bridge.yaml, ..data -> ..<timestamp>/
    mkdirSync(join(dir, '..v1'));
    writeFileSync(join(dir, '..v1', 'bridge.yaml'), 'sessions: [a]\n');
    symlinkSync('..v1', join(dir, '..data'));
    symlinkSync(join('..data', 'bridge.yaml'), join(dir, 'bridge.yaml'));
    watchFile(join(dir, 'bridge.yaml'));

    mkdirSync(join(dir, '..v2'));
    writeFileSync(join(dir, '..v2', 'bridge.yaml'), 'sessions: [b]\n');
    symlinkSync('..v2', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    rmSync(join(dir, '..v1'), { recursive: true });
    await settle();
    expect(calls).toBe(1);
  });

  it('stops calling back once closed', async () => {
    const file = join(dir, 'bridge.yaml');
    writeFileSync(file, 'a: 1\n');
    watchFile(file);
    writeFileSync(file, 'a: 2\n');
    watcher!.close();
    await settle();
    expect(calls).toBe(0);
  });
});
