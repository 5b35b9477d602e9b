// How the README's commands run, where it matters beyond what they print.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

describe('npm scripts', () => {
  it('`npm run demo` runs node itself, not the tsx CLI in between', () => {
    // The tsx CLI relays a Ctrl-C to its child and SIGKILLs the child when it has not confirmed
    // within 30 ms twice: a demo busy that long died without stopping its daemon, which runs in a
    // process group of its own and then reconnected forever to a simulator that was gone. Whether
    // a given Ctrl-C meets a busy demo is chance (test/integration/cli/demo.test.ts runs one), so
    // the way the script starts it is pinned here.
    expect(pkg.scripts.demo).toMatch(/^node --import tsx src\/cli\/main\.ts demo$/);
  });
});
