// `check` and `run` describe an unusable state directory in the same words (src/cli/state-dir.ts):
// run's sentence says what to do; check said only "is not writable (EPERM)". A directory under
// /sys cannot be created even by root, so the case is real wherever the tests run.
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
