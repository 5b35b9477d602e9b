// The binary's version flags: the version alone, whichever spelling a person tries.
import { describe, expect, it } from 'vitest';
import { BRIDGE_VERSION } from '../../../src/util/version.js';
import { runCli } from './cli-process.js';

describe('browser-telemetry-bridge --version', () => {
  it.each(['--version', '-v', '-V'])('%s prints the version alone and exits 0', async (flag) => {
    const res = await runCli([flag], {});
    expect(res).toEqual({ code: 0, stdout: `${BRIDGE_VERSION}\n`, stderr: '' });
  });
});
