// The container image runs the daemon from the esbuild bundle (tools/bundle.ts), not from dist/:
// the bundle must run as config/kubernetes/sidecar.yaml deploys it (one session, no ingest worker,
// the manifest's NODE_OPTIONS: V8 without its compilers, so no WebAssembly either), as the image's
// own NODE_OPTIONS and entrypoint run it, and as a bridge with an ingest worker and V8's defaults
// (the worker's entry is found next to the chunk that starts it), and must say that the devkit is
// absent rather than fail. Built into a temporary directory whose node_modules is the
// repository's, as the image's /app/bundle sits beside /app/node_modules.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BRIDGE_VERSION } from '../../../src/util/version.js';
import { bundle } from '../../../tools/bundle.js';
import { sidecarCommandFlags, sidecarNodeOptions } from '../../../bench/sidecar-manifest.js';
import { dockerfileEntrypointFlags, dockerfileNodeOptions } from '../../../bench/image-node-options.js';
import { harness, until, type Harness } from '../../helpers/harness.js';
import { REPO, runCli, startCli } from './cli-process.js';

let root: string;
let main: string;
let h: Harness;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sidecar-bundle-'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  copyFileSync(join(REPO, 'package.json'), join(root, 'package.json'));
  const out = await bundle(join(root, 'bundle'));
  main = out.main;
  expect(existsSync(out.worker) && existsSync(out.healthcheck)).toBe(true);
}, 60_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

beforeEach(async () => {
  h = await harness();
  h.sim.createSession('s1').produce(20);
});

afterEach(async () => {
  await h.close();
});

describe('the bundled daemon', () => {
  const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
  // NODE_OPTIONS as the environment variable, flags on the command line, as each runs node: Node
  // refuses some V8 flags in NODE_OPTIONS and then does not start at all.
  const cases = [
    {
      name: 'as the sidecar manifest runs it',
      workers: '0',
      nodeOptions: sidecarNodeOptions(),
      flags: sidecarCommandFlags(),
    },
    {
      name: 'as the image runs it, with an ingest worker',
      workers: '1',
      nodeOptions: dockerfileNodeOptions(dockerfile),
      flags: dockerfileEntrypointFlags(dockerfile),
    },
    { name: "with an ingest worker and V8's defaults", workers: '1', nodeOptions: '', flags: [] },
  ];
  for (const { name, workers, nodeOptions, flags } of cases) {
    it(`delivers a session ${name} and stops cleanly`, async () => {
      const env = h.env({ BRIDGE_SESSIONS: 's1', BRIDGE_WORKERS: workers, NODE_OPTIONS: nodeOptions });
      const bridge = startCli(['run'], env, [...flags, main]);
      // A node that refuses its options exits at once: say so with its stderr rather than time out.
      let exited: { code: number | null; stderr: string } | undefined;
      void bridge.done.then((d) => (exited = d));
      await until(() => {
        if (exited) throw new Error(`the bridge exited with ${exited.code}: ${exited.stderr}`);
        return h.receiver.records.length >= 20;
      }, 'the 20 events delivered');
      bridge.child.kill('SIGTERM');
      const done = await bridge.done;
      expect(done.code, done.stderr).toBe(0);
    });
  }

  it('reads its version from package.json and says the devkit is absent', async () => {
    expect(await runCli(['--version'], {}, 30_000, [main])).toEqual({
      code: 0,
      stdout: `${BRIDGE_VERSION}\n`,
      stderr: '',
    });
    const demo = await runCli(['demo'], {}, 30_000, [main]);
    expect(demo.code).not.toBe(0);
    expect(demo.stderr).toMatch(/belongs to the devkit/);
    // Its command list must not offer them as if they ran here (the image's `--help`).
    const help = await runCli(['--help'], {}, 30_000, [main]);
    expect(help.code).toBe(0);
    for (const name of ['demo', 'simulate', 'receive']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${name} +not in this installation \\(the devkit\\)`, 'm'));
    }
    expect(help.stdout).toMatch(/^ {2}run +follow the configured sessions/m);
  });
});
