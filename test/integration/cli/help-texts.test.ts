// Every command's --help as a person reads it on a terminal: no line runs far past the others
// (a paragraph left unwrapped), and a shell example continued on the next line keeps its
// backslash (in a template literal `\` before a newline is a line continuation and vanished, so
// `simulate --help` printed one broken line where two lines of a command were meant). And every
// option the README and docs/ give a command (`top --url`, `npm run demo -- --rate`) is one its
// --help lists.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli } from './cli-process.js';

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

/** `command --flag` pairs the documents write: after the command's name on one shell segment. */
function documentedFlags(): Array<[string, string, string]> {
  const files = ['README.md', ...readdirSync(join(REPO, 'docs')).map((f) => `docs/${f}`)];
  const command = new RegExp(
    `(?:browser-telemetry-bridge|main\\.[jt]s|\`)\\s*(${COMMANDS.join('|')})\\b([^|;&#\`()]*)`,
    'g',
  );
  const found = new Map<string, [string, string, string]>();
  for (const f of files) {
    for (const raw of readFileSync(join(REPO, f), 'utf8').split('\n')) {
      const line = raw
        .replace(/npm run demo --/g, 'browser-telemetry-bridge demo')
        .replace(/npm run [\w:]+( --)?/g, ' ');
      for (const m of line.matchAll(command))
        for (const flag of m[2]!.matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g))
          found.set(`${m[1]} ${flag[1]}`, [m[1]!, flag[1]!, f]);
    }
  }
  return [...found.values()];
}

describe('options the documents give a command', () => {
  const flags = documentedFlags();
  it('finds them', () => expect(flags.map(([c, f]) => `${c} ${f}`)).toContain('top --url'));

  it("are each listed by that command's --help", async () => {
    const help = new Map<string, string>();
    for (const c of new Set(flags.map(([c]) => c))) help.set(c, (await runCli([c, '--help'], {})).stdout);
    const unknown = flags.filter(([c, f]) => !new RegExp(`(^|\\s)${f}\\b`).test(help.get(c)!));
    expect(unknown.map(([c, f, file]) => `${c} ${f} (${file})`)).toEqual([]);
  });
});
