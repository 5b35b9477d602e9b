// The state database turning unwritable under a running daemon (a real child process), as a volume
// remounted read-only after an error does. A remount is refused while files are open for writing,
// so the test does the closest thing it can: the immutable flag (chattr +i) on the database and its
// write-ahead log, which fails every write through the descriptors already open (Linux ≥ 5.3). It
// needs root and a file system with the flag; elsewhere the test says why it did not run. What must
// hold: reading pauses, the log and /readyz say so, nothing is lost, and once the files take writes
// again everything resumes without a restart.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, spawnDaemon, surfaceUrl, until, type Harness } from '../../helpers/harness.js';
import { runToTheEnd } from '../../helpers/run-to-end.js';

function chattr(flag: '+i' | '-i', files: string[]): boolean {
  try {
    execFileSync('chattr', [flag, ...files], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const probeDir = mkdtempSync(join(tmpdir(), 'bridge-chattr-probe-'));
const probeFile = join(probeDir, 'f');
writeFileSync(probeFile, '');
const canFlag = process.getuid?.() === 0 && chattr('+i', [probeFile]);
if (canFlag) chattr('-i', [probeFile]);
rmSync(probeDir, { recursive: true, force: true });

let h: Harness | undefined;
let state: string | undefined;
const daemons: ChildProcess[] = [];
afterEach(async () => {
  if (state) chattr('-i', [join(state, 'bridge.db'), join(state, 'bridge.db-wal')]);
  for (const d of daemons.splice(0)) if (d.exitCode === null && d.signalCode === null) d.kill('SIGKILL');
  await h?.close();
  h = undefined;
  if (state) rmSync(state, { recursive: true, force: true });
  state = undefined;
});

const CONFIG = `
spool: { mode: always, commit_interval: 10ms }
upstream: { idle_timeout: 3s, backoff: { initial: 20ms, max: 200ms } }
exporter: { timeout: 2s, batch_max_records: 100, concurrency: 2, backoff: { initial: 20ms, max: 300ms } }
`;

describe.skipIf(!canFlag)('the state database unwritable while the daemon runs (needs root and chattr)', () => {
  it('pauses reading, says so, and resumes without a restart or a loss once it takes writes again', async () => {
    h = await harness({ bufferSize: 100_000 });
    state = mkdtempSync(join(tmpdir(), 'bridge-state-'));
    const configFile = join(h.stateDir, 'bridge.yaml');
    writeFileSync(configFile, CONFIG);
    const ids = ['u1'];
    h.sim.createSession('u1').produce(200);
    const daemon = spawnDaemon(
      h.env({
        BRIDGE_CONFIG: configFile,
        BRIDGE_STATE_DIR: state,
        BRIDGE_SESSIONS: 'u1',
        BRIDGE_LISTEN: '127.0.0.1:0',
        LOG_LEVEL: 'info',
      }),
      ['run', '--until-ended'],
    );
    daemons.push(daemon);
    await until(() => h!.received('u1') > 100, 'the daemon to deliver', 30_000);
    const files = [join(state, 'bridge.db'), join(state, 'bridge.db-wal')];
    expect(chattr('+i', files)).toBe(true);
    await until(() => /cannot write the spool \(/.test(daemon.output()), 'the failed writes reported', 30_000);
    expect(daemon.output()).toMatch(
      /"msg":"cannot write the spool \(the state database is read-only or its volume fails\)/,
    );
    const ready = await fetch(`${surfaceUrl(daemon.output())!}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.stringify(await ready.json())).toMatch(/store not writable/);
    const paused = h.received('u1');

    expect(chattr('-i', files)).toBe(true);
    await until(() => /spool writes succeed again/.test(daemon.output()), 'the writes to succeed again', 30_000);
    await runToTheEnd(h, daemon, ids, { lag: 400, what: 'the daemon to catch up', timeoutMs: 60_000 });
    expect(h.received('u1')).toBeGreaterThan(paused);
  }, 120_000);
});
