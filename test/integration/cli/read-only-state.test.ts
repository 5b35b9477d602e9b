// A state directory whose files this user may not write (a copy restored with the wrong owner, a
// chmod): `check` and `run` must say so at start, naming the file and what to do. Root writes any
// file whatever its mode, so the commands run as `nobody`; elsewhere the test says why it did not run.
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../helpers/harness.js';
import { othersCanReach } from '../../helpers/other-user.js';
import { runCli, startCli } from './cli-process.js';

const NOBODY = { uid: 65534, gid: 65534 };
// nobody must reach node and this clone: not so in a private directory (CI's mktemp -d, /root).
const repo = fileURLToPath(new URL('../../..', import.meta.url));
const runsAsNobody =
  process.getuid?.() === 0 && othersCanReach(process.execPath, { run: true }) && othersCanReach(repo);

let h: Harness;
let dir: string;
beforeEach(async () => {
  h = await harness();
  h.sim.createSession('s1').produce(20);
  dir = mkdtempSync(join(tmpdir(), 'bridge-ro-state-'));
  chownSync(dir, NOBODY.uid, NOBODY.gid);
});
afterEach(async () => {
  rmSync(dir, { recursive: true, force: true });
  await h.close();
});

describe.skipIf(!runsAsNobody)(
  'a state database this user may not write (runs as nobody: needs root, and node and this clone where nobody can reach them)',
  () => {
    it('check fails the state dir and run exits 1, both naming the file and what to do', async () => {
      const env = h.env({ BRIDGE_SESSIONS: 's1', BRIDGE_STATE_DIR: dir, LOG_LEVEL: 'info' });
      // A database of this user's own, left by a clean stop.
      const first = startCli(['run'], env, undefined, NOBODY);
      await first.waitFor(/following sessions/);
      first.child.kill('SIGTERM');
      expect((await first.done).code).toBe(0);
      chmodSync(join(dir, 'bridge.db'), 0o400);

      const check = await runCli(['check'], env, 30_000, undefined, NOBODY);
      expect(check.code).toBe(1);
      expect(check.stdout).toContain(
        `✗ state dir      ${join(dir, 'bridge.db')} is read-only for this user (uid 65534) (mode 0400); change its owner or mode`,
      );

      const run = await runCli(['run'], env, 30_000, undefined, NOBODY);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `error: the state file ${join(dir, 'bridge.db')} is read-only for this user (uid 65534) (mode 0400); change its owner or mode (the bridge keeps its files 0600 for its own user), or set BRIDGE_STATE_DIR (or state.dir) to a directory this user may write\n`,
      );
    });
  },
);
