// A devkit command where the devkit is not installed (the container image): words, not a stack trace.
import { describe, expect, it } from 'vitest';
import { DEVKIT_COMMANDS, devkitAbsentMessage, isModuleNotFound } from '../../../src/cli/devkit-absent.js';

describe('the devkit where it is absent', () => {
  it('knows the devkit commands', () => {
    expect([...DEVKIT_COMMANDS].sort()).toEqual(['demo', 'receive', 'simulate']);
  });

  it.each<[string, unknown, boolean]>([
    ['an ESM import of a missing file', Object.assign(new Error('x'), { code: 'ERR_MODULE_NOT_FOUND' }), true],
    ['a require of a missing package', Object.assign(new Error('x'), { code: 'MODULE_NOT_FOUND' }), true],
    ['any other failure of the module', new SyntaxError('x'), false],
    ['a thrown non-error', 'boom', false],
    ['nothing', undefined, false],
  ])('%s: %s', (_name, err, expected) => {
    expect(isModuleNotFound(err)).toBe(expected);
  });

  it('the message names the command, says why, and where to run it instead', () => {
    const m = devkitAbsentMessage('demo');
    expect(m).toContain('"demo" belongs to the devkit');
    expect(m).toContain('the container image carries only the daemon');
    // Not `npx browser-telemetry-bridge`: the package is not on the registry, a tarball is built with npm pack.
    expect(m).toContain('npm ci && npx tsx src/cli/main.ts demo');
    expect(m).toContain('npm pack');
    expect(m).toContain('docker build --target devkit .');
  });
});
