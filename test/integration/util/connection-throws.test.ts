// A connection step that throws (a raw % in a proxy password, a client key that is not PEM) fails
// that request and nothing else: the process lives on past the request's connect timer. A child
// process, because what failed was the process: an uncaught ReferenceError from a timer, exit 1.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function runChild(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'connection-throws-child.ts')], {
    env: { PATH: process.env.PATH ?? '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((r) => child.once('close', (code) => r({ code, stdout, stderr })));
}

describe('a connection that throws while it is opened', () => {
  it('fails its request and leaves the process running', async () => {
    const res = await runChild();
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const errors = JSON.parse(res.stdout) as Record<string, string>;
    expect(Object.keys(errors)).toHaveLength(3);
    expect(errors['raw % in the proxy password']).toMatch(/percent-encoding/);
    // The password is never in the message.
    expect(errors['raw % in the proxy password']).not.toContain('50%off');
    for (const name of ['a client key that is not PEM, direct', 'a client key that is not PEM, through a proxy'])
      expect(errors[name]).toMatch(/DECODER|PEM|key/i);
  });
});
