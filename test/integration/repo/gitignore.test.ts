// Following the README in a clone leaves nothing untracked: what its commands write is ignored.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../../..');

describe('.gitignore', () => {
  it('covers the default state directory, the README receiver output and the compose password file', () => {
    const paths = ['state/bridge.db', 'state/bridge.lock', 'records.jsonl', 'config/docker-compose/db-password.txt'];
    const ignored = execFileSync('git', ['check-ignore', '--no-index', ...paths], { cwd: REPO, encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(ignored).toEqual(paths);
  });
});
