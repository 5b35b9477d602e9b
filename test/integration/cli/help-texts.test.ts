// Every command's --help as a person reads it on a terminal: no line runs far past the others
// (a paragraph left unwrapped), and a shell example continued on the next line keeps its
// backslash (in a template literal `\` before a newline is a line continuation and vanished, so
// `simulate --help` printed one broken line where two lines of a command were meant).
import { describe, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

const COMMANDS = ['run', 'tail', 'pool', 'validate', 'check', 'top', 'demo', 'simulate', 'receive'];

describe('--help', () => {
  it.each(COMMANDS)('%s: every line within 120 columns, continued examples end in a backslash', async (command) => {
    const res = await runCli([command, '--help'], {});
    expect(res.code).toBe(0);
    const lines = res.stdout.split('\n');
    expect(lines.filter((l) => [...l].length > 120)).toEqual([]);
    // An example line followed by a deeper-indented one is a command continued: it ends with `\`.
    lines.forEach((line, i) => {
      const next = lines[i + 1] ?? '';
      const indent = (s: string): number => s.length - s.trimStart().length;
      const isExample = /^ {2}(browser-telemetry-bridge |[A-Z_]+=)/.test(line);
      if (isExample && next.trim() !== '' && indent(next) > indent(line)) expect(line).toMatch(/ \\$/);
    });
  });

  it('simulate: the discovery example is two lines of one command', async () => {
    const res = await runCli(['simulate', '--help'], {});
    expect(res.stdout).toContain(
      'BRIDGE_DISCOVER=true \\\n    BRIDGE_DISCOVER_TAGS=team=a browser-telemetry-bridge run',
    );
  });
});
