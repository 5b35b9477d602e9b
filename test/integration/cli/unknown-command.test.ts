// A mistyped command: one line naming the command meant (as a mistyped option does), exit 2,
// rather than the bare "unknown command" above a page of help.
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

describe('browser-telemetry-bridge <unknown command>', () => {
  it.each([
    ['tial', 'unknown command "tial"; did you mean tail? (--help for the commands)'],
    ['chek', 'unknown command "chek"; did you mean check? (--help for the commands)'],
    ['frobnicate', 'unknown command "frobnicate" (--help for the commands)'],
  ])('%s', async (name, said) => {
    const res = await runCli([name], {});
    expect(res).toEqual({ code: 2, stdout: '', stderr: `${said}\n` });
  });
});
