// Another program holding the state database inside a write transaction while the daemon runs (a
// real child process): a `sqlite3` shell left after BEGIN, a backup tool. Nothing of the bridge's own
// ever holds a lock against it, so such a lock can only be waited out or failed. The connection is
// synchronous on the main thread: at SQLite's usual busy timeout of 5 s every commit attempt froze
// the main thread for 5 s, its HTTP surface with it, and the log blamed a full disk. What must hold:
// the surface keeps answering, the log names the lock, nothing is lost, and once the program lets
// go everything resumes without a restart.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { harness, sleep, spawnDaemon, surfaceUrl, until, type Harness } from '../../helpers/harness.js';
import { runToTheEnd } from '../../helpers/run-to-end.js';

let h: Harness | undefined;
let state: string | undefined;
let holder: Database.Database | undefined;
const daemons: ChildProcess[] = [];
afterEach(async () => {
  if (holder?.inTransaction) holder.exec('ROLLBACK');
  holder?.close();
  holder = undefined;
  for (const d of daemons.splice(0)) if (d.exitCode === null && d.signalCode === null) d.kill('SIGKILL');
  await h?.close();
  h = undefined;
  if (state) rmSync(state, { recursive: true, force: true });
  state = undefined;
});

// Every record committed (spool.mode always) every 10 ms: a commit is always being tried.
const CONFIG = `
spool: { mode: always, commit_interval: 10ms }
upstream: { idle_timeout: 3s, backoff: { initial: 20ms, max: 200ms } }
exporter: { timeout: 2s, batch_max_records: 100, concurrency: 2, backoff: { initial: 20ms, max: 300ms } }
`;

it('keeps answering while another program holds the state database, names the lock, and resumes without a loss', async () => {
  h = await harness({ bufferSize: 100_000 });
  state = mkdtempSync(join(tmpdir(), 'bridge-state-'));
  const configFile = join(h.stateDir, 'bridge.yaml');
  writeFileSync(configFile, CONFIG);
  const ids = ['l1'];
  h.sim.createSession('l1').produce(200);
  const daemon = spawnDaemon(
    h.env({
      BRIDGE_CONFIG: configFile,
      BRIDGE_STATE_DIR: state,
      BRIDGE_SESSIONS: 'l1',
      BRIDGE_LISTEN: '127.0.0.1:0',
      LOG_LEVEL: 'info',
    }),
    ['run', '--until-ended'],
  );
  daemons.push(daemon);
  await until(() => h!.received('l1') > 100, 'the daemon to deliver', 30_000);
  const url = surfaceUrl(daemon.output())!;

  // The other program: a write transaction, held (its own wait for the lock is SQLite's 5 s).
  holder = new Database(join(state, 'bridge.db'), { timeout: 5000 });
  holder.exec('BEGIN IMMEDIATE');
  await until(
    () => /cannot write the spool \(another program holds the state database locked/.test(daemon.output()),
    'the lock reported',
    30_000,
  );
  // Liveness, not speed: asked once a second for 8 s, the surface answers each time within 3 s. With
  // the main thread frozen 5 s a commit attempt (the attempts 5 s apart once the backoff is long),
  // some of these waited out their bound.
  for (let i = 0; i < 8; i++) {
    const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3000) });
    expect(health.status).toBe(200);
    await sleep(1000);
  }
  const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(4000) });
  expect(ready.status).toBe(503);
  expect(JSON.stringify(await ready.json())).toMatch(/store not writable/);
  expect(daemon.output()).not.toMatch(/disk full\?/);

  holder.exec('ROLLBACK');
  holder.close();
  holder = undefined;
  await until(() => /spool writes succeed again/.test(daemon.output()), 'the writes to succeed again', 30_000);
  await runToTheEnd(h, daemon, ids, { lag: 400, what: 'the daemon to catch up', timeoutMs: 60_000 });
}, 120_000);
