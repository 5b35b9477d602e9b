// BRIDGE_* variables the bridge does not read are named with the closest one it does; the list of
// known names is the set the source reads, no more and no less.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bridgeVariables, unknownVariableWarnings } from '../../../src/config/env-names.js';

describe('unknownVariableWarnings', () => {
  it.each([
    [
      { BRIDGE_SESSION: 's1' },
      ['BRIDGE_SESSION is set, but the bridge reads no such variable; did you mean BRIDGE_SESSIONS?'],
    ],
    [
      { BRIDGE_DISCOVERY: 'true' },
      ['BRIDGE_DISCOVERY is set, but the bridge reads no such variable; did you mean BRIDGE_DISCOVER?'],
    ],
    [
      { BRIDGE_STATEDIR: '/s' },
      ['BRIDGE_STATEDIR is set, but the bridge reads no such variable; did you mean BRIDGE_STATE_DIR?'],
    ],
    [{ bridge_sessions: 's1' }, []],
    [{ BRIDGE_TOTALLY_ELSE: '1' }, ['BRIDGE_TOTALLY_ELSE is set, but the bridge reads no such variable']],
    [{ 'BRIDGE_X\u001b[2J': '1' }, ['BRIDGE_X\ufffd[2J is set, but the bridge reads no such variable']],
    [{ BRIDGE_SESSIONS: 's1', BRIDGE_LISTEN: 'off', BROWSER_BASE_URL: 'x', OTEL_SERVICE_NAME: 'y' }, []],
    [{ BRIDGE_SESSION: undefined }, []],
  ])('%j', (env, expected) => {
    expect(unknownVariableWarnings(env)).toEqual(expected);
  });

  it('names several in name order', () => {
    expect(unknownVariableWarnings({ BRIDGE_WORKER: '2', BRIDGE_SESSION: 's' }).map((w) => w.split(' ')[0])).toEqual([
      'BRIDGE_SESSION',
      'BRIDGE_WORKER',
    ]);
  });
});

const REPO = resolve(import.meta.dirname, '../../..');

describe('the known names', () => {
  // Every BRIDGE_* name the source's code and messages mention, but constants.
  const CONSTANTS = new Set(['BRIDGE_VERSION']);
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
    );
  const mentioned = new Set<string>();
  for (const f of files(join(REPO, 'src'))) {
    if (f.endsWith('env-names.ts')) continue;
    // Code and messages, not comments: a comment that outlived its variable must not keep it known.
    const code = readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|(^|[^:])\/\/.*$/gm, '$1');
    for (const m of code.matchAll(/\bBRIDGE_[A-Z][A-Z0-9_]*[A-Z0-9]\b/g)) if (!CONSTANTS.has(m[0])) mentioned.add(m[0]);
  }

  it('holds every BRIDGE_* variable the source names', () => {
    expect([...mentioned].filter((n) => !bridgeVariables.includes(n))).toEqual([]);
  });

  it('holds none the source does not name', () => {
    expect(bridgeVariables.filter((n) => !mentioned.has(n))).toEqual([]);
  });
});
