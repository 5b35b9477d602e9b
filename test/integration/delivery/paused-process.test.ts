// A paused process: the daemon (a real child process) is stopped with SIGSTOP while sessions stream
// and continued with SIGCONT seconds later, as a debugger, a frozen VM or a cgroup freezer does.
// Meanwhile the service went on: its small ring buffer may evict what the bridge had not read (how
// much the sockets held instead depends on the machine's load), and its keepalives stopped reaching
// a reader. Every timer of the daemon fires late at once on resume (idle watchdog, commit interval,
// export timeout). Nothing may be lost, nothing reported missing: what the ring buffer no longer
// holds comes from the archive.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'vitest';
import { exited, harness, sleep, spawnDaemon, until, type Harness } from '../../helpers/harness.js';
import { runToTheEnd } from '../../helpers/run-to-end.js';

let h: Harness;
afterEach(async () => h?.close());

const CONFIG = `
spool: { commit_interval: 10ms }
upstream: { idle_timeout: 1s, backoff: { initial: 20ms, max: 200ms } }
exporter: { timeout: 1s, batch_max_records: 200, concurrency: 2, backoff: { initial: 20ms, max: 300ms } }
shutdown: { grace: 5s }
`;

describe('a paused daemon', () => {
  for (const mode of ['overflow', 'always'] as const)
    it(`SIGSTOP for longer than the idle timeout and the ring buffer, then SIGCONT: every event arrives, no gap (spool.mode ${mode})`, async () => {
      // 300 events of ring buffer at 200 events/s: a 3 s pause evicts about half of what it missed.
      h = await harness({ bufferSize: 300, keepaliveMs: 200 });
      const ids = ['p1', 'p2'];
      for (const id of ids) h.sim.createSession(id).produce(200);
      const configFile = join(h.stateDir, 'bridge.yaml');
      writeFileSync(configFile, CONFIG);
      const d = spawnDaemon(
        h.env({
          BRIDGE_CONFIG: configFile,
          BRIDGE_SESSIONS: ids.join(','),
          BRIDGE_SPOOL_MODE: mode,
        }),
        ['run', '--until-ended'],
      );
      try {
        await until(() => ids.every((id) => h.received(id) > 100), 'the daemon to deliver from both sessions', 30_000);
        d.kill('SIGSTOP');
        const pausedAt = ids.map((id) => h.sim.session(id)!.lastSeq);
        // The pause itself, not an assertion: two ring buffers' worth of events, measured in events
        // the service produced, so a slow machine pauses as long in events as a quiet one.
        await until(
          () => ids.every((id, i) => h.sim.session(id)!.lastSeq > pausedAt[i]! + 600),
          'the service to evict what the paused daemon has not read',
          30_000,
        );
        d.kill('SIGCONT');
        await runToTheEnd(h, d, ids, { lag: 400, what: 'the daemon to catch up after the pause', timeoutMs: 60_000 });
      } finally {
        d.kill('SIGCONT');
        if (d.exitCode === null) d.kill('SIGKILL');
        await exited(d);
        await sleep(0);
      }
    }, 120_000);
});
