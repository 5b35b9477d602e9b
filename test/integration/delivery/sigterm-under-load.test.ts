// SIGTERM in the middle of a heavy flow, as an orchestrator stops a pod: the daemon (a real child
// process) stops reading, delivers what it can within its grace period against a slow collector,
// and exits by itself; what it could not deliver in time is read again by the next daemon on the
// same state directory. Nothing may be lost, in either spool mode.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, harness, spawnDaemon, until, type Harness } from '../../helpers/harness.js';
import { runToTheEnd } from '../../helpers/run-to-end.js';

let h: Harness;
/** Daemons of the test, killed after it whatever happened (a failed assertion must not leave one running). */
const daemons: ChildProcess[] = [];
afterEach(async () => {
  for (const d of daemons.splice(0)) if (d.exitCode === null && d.signalCode === null) d.kill('SIGKILL');
  await h?.close();
});

const CONFIG = `
spool: { commit_interval: 10ms }
upstream: { idle_timeout: 3s, backoff: { initial: 20ms, max: 200ms } }
exporter: { timeout: 2s, batch_max_records: 100, concurrency: 2, backoff: { initial: 20ms, max: 300ms } }
shutdown: { grace: 1s }
`;

describe('SIGTERM under load', () => {
  for (const mode of ['overflow', 'always'] as const)
    it(`exits by itself within its grace period with a slow collector, and the next daemon delivers the rest (spool.mode ${mode})`, async () => {
      h = await harness({ bufferSize: 100_000 });
      const ids = ['t1', 't2', 't3'];
      for (const id of ids) h.sim.createSession(id).produce(500);
      const configFile = join(h.stateDir, 'bridge.yaml');
      writeFileSync(configFile, CONFIG);
      const env = h.env({
        BRIDGE_CONFIG: configFile,
        BRIDGE_SESSIONS: ids.join(','),
        BRIDGE_SPOOL_MODE: mode,
        LOG_LEVEL: 'info',
      });
      const first = spawnDaemon(env);
      daemons.push(first);
      await until(() => ids.every((id) => h.received(id) > 300), 'the first daemon to deliver', 30_000);
      // A collector that takes its time: a backlog builds that one second of grace cannot drain.
      h.receiver.behaviour = { delayMs: 400 };
      const requests = h.receiver.requests.length;
      await until(() => h.receiver.requests.length > requests + 4, 'slow requests', 30_000);
      first.kill('SIGTERM');
      // A clean exit, not a kill: a stop that outlasts its grace period would be SIGKILLed by an
      // orchestrator and its commits lost (30 s is far beyond the grace period even on a loaded machine).
      await until(
        () => first.exitCode !== null || first.signalCode !== null,
        'the first daemon to exit after SIGTERM',
        30_000,
      );
      expect(await exited(first), first.output()).toBe(0);
      // Not vacuous: the grace period ended with records left, which only the next daemon can deliver.
      expect(first.output()).toMatch(/"drained":false.*"msg":"grace period over/);

      h.receiver.behaviour = {};
      // The sessions go on, slower: a daemon starting on a loaded machine must be able to catch up
      // with them (CI under load had 3 × 500 events/s outrun it for a minute).
      for (const id of ids) h.sim.session(id)!.produce(50);
      const second = spawnDaemon(env, ['run', '--until-ended']);
      daemons.push(second);
      await runToTheEnd(h, second, ids, { lag: 500, what: 'the second daemon to catch up', timeoutMs: 60_000 });
      // Above the sum of its steps' own waits (30 + 30 + 30 + 60 s), so that a slow run fails naming its step.
    }, 200_000);
});
