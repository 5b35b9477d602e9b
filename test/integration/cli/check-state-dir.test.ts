// `check` and `run` describe an unusable state directory in the same words (src/cli/state-dir.ts):
// run's sentence says what to do; check said only "is not writable (EPERM)". A directory under
// /sys cannot be created even by root, so the case is real wherever the tests run.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

const env = {
  BROWSER_API_URL: 'http://127.0.0.1:9',
  BROWSER_API_KEY: 'k',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
  BRIDGE_LISTEN: 'off',
  BRIDGE_STATE_DIR: '/sys/bridge-state-dir-test',
};

describe('a state directory that cannot be created', () => {
  it('check shows the sentence run exits with', async () => {
    const run = await runCli(['run'], env);
    expect(run.code).toBe(1);
    const sentence = /^error: the state directory (.+)$/m.exec(run.stderr)?.[1];
    expect(sentence).toMatch(/^\/sys\/bridge-state-dir-test .*; set BRIDGE_STATE_DIR|read-only file system/);
    const check = await runCli(['check'], env);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/^✗ state dir\s+(.+)$/m);
    expect(/^✗ state dir\s+(.+)$/m.exec(check.stdout)?.[1]).toBe(sentence);
  });
});

/** A tmpfs of `size` at a new directory, filled but for `leave` bytes; undefined when it cannot be mounted. */
function fullVolume(size: string, leave: number): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-full-state-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  const fd = openSync(join(dir, 'filler'), 'w');
  try {
    for (const chunk of [Buffer.alloc(64 * 1024), Buffer.alloc(4096)])
      try {
        for (;;) writeSync(fd, chunk);
      } catch {
        // ENOSPC: on to smaller pieces
      }
  } finally {
    closeSync(fd);
  }
  if (leave > 0) execFileSync('truncate', ['-s', `-${leave}`, join(dir, 'filler')]);
  return dir;
}

describe.skipIf(process.getuid?.() !== 0)('a state directory on a full volume (needs root to mount a tmpfs)', () => {
  // An empty file takes no room, so the write test passed on a full volume: check showed ✓ and run
  // stopped at SQLite's "database or disk is full", naming neither the directory nor what to do.
  it.each([
    ['no byte left', 0],
    ['1 MiB left, less than a new state database takes', 1024 * 1024],
  ])('%s: run exits with a sentence naming the directory, and check fails with the same', async (_what, leave) => {
    const volume = fullVolume('4m', leave);
    expect(volume).toBeDefined();
    if (volume === undefined) return;
    try {
      const dirEnv = { ...env, BRIDGE_STATE_DIR: join(volume, 'state') };
      const run = await runCli(['run'], dirEnv);
      expect(run.code).toBe(1);
      const sentence = /^error: the state directory (.+)$/m.exec(run.stderr)?.[1];
      expect(sentence).toMatch(
        / is on a full volume \(\d+ KiB free; a new state database needs about 2 MiB\); free space/,
      );
      const check = await runCli(['check'], dirEnv);
      expect(check.code).toBe(1);
      expect(/^✗ state dir\s+(.+)$/m.exec(check.stdout)?.[1]).toBe(sentence);
    } finally {
      execFileSync('umount', [volume]);
      rmSync(volume, { recursive: true, force: true });
    }
  });
});
