// What the daemon loads at start must not bring in Node's bundled undici (util/node-http.ts says
// why: 13 MiB of RSS per thread). A child process, because the module list is the process's and
// vitest's own process has loaded everything already.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const REPO = new URL('../../../', import.meta.url);

describe("the daemon's modules", () => {
  it("leave Node's bundled undici unloaded", () => {
    // run-command.ts is what `run` loads in the main thread; worker.ts's imports are what an ingest
    // worker loads (worker.ts itself refuses to run outside a worker thread).
    const script = `
      await import('./src/cli/run-command.ts');
      await import('./src/upstream/client.ts');
      await import('./src/session/session-factory.ts');
      process.stdout.write(JSON.stringify(process.moduleLoadList.filter((m) => /undici/.test(m))));
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual([]);
  });
});
