// A collector that refuses every request (400 for all: a gateway with a wrong header, a gzip
// mismatch, another tenant) is the collector's or the configuration's failure, not the records':
// the daemon (a real child process, `run --until-ended`) keeps every record spooled, says so in
// /readyz, /metrics and its log, does not exit, and delivers everything once the collector accepts
// again. (A true poison record next to accepted ones is still isolated and dropped alone: see
// test/unit/export/delivery.test.ts.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, harness, sleep, spawnDaemon, surfaceUrl, until, type Harness } from '../../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

const CONFIG = `
spool: { commit_interval: 10ms }
upstream: { idle_timeout: 3s, backoff: { initial: 20ms, max: 200ms } }
exporter: { timeout: 2s, batch_max_records: 100, concurrency: 3, backoff: { initial: 50ms, max: 400ms } }
shutdown: { grace: 3s }
`;

async function httpUrl(output: () => string): Promise<string> {
  await until(() => surfaceUrl(output()) !== undefined, 'the HTTP surface', 20_000);
  return surfaceUrl(output())!;
}

describe('a collector that refuses everything', () => {
  it('keeps every record spooled, reports it, does not exit, and delivers all once it accepts again', async () => {
    h = await harness();
    const configFile = join(h.stateDir, 'bridge.yaml');
    writeFileSync(configFile, CONFIG);
    h.receiver.behaviour = { status: 400 };
    const s = h.sim.createSession('refused');
    s.emit(1000);
    const d = spawnDaemon(
      h.env({ BRIDGE_CONFIG: configFile, BRIDGE_SESSIONS: 'refused', BRIDGE_LISTEN: '127.0.0.1:0', LOG_LEVEL: 'info' }),
      ['run', '--until-ended'],
    );
    try {
      const url = await httpUrl(d.output);
      // The session ends while the collector refuses: --until-ended must not call that "delivered".
      await until(() => h.receiver.requests.length > 50, 'refused requests', 20_000);
      s.end();
      // Measured, not timed: the daemon has seen the end, and refused rounds went on after it.
      await until(() => /"msg":"session ended"/.test(d.output()), 'the daemon to see the session end', 20_000);
      const afterEnd = h.receiver.requests.length;
      await until(() => h.receiver.requests.length > afterEnd + 10, 'refused rounds after the end', 20_000);
      expect(d.exitCode, d.output()).toBe(null);
      expect(h.receiver.records.length).toBe(0);
      type Ready = {
        exporter: { failing: boolean; refusingAll?: { status: number; message: string } };
        spool: { records: number };
      };
      const readyz = async (): Promise<Ready> => (await (await fetch(`${url}/readyz`)).json()) as Ready;
      // The first round splits every refused request down to single records before it may say that
      // the collector refuses everything: wait for that verdict, however long the round takes.
      let ready = await readyz();
      for (const end = Date.now() + 30_000; ready.exporter.refusingAll === undefined && Date.now() < end;) {
        await sleep(20);
        ready = await readyz();
      }
      expect(ready.exporter.failing).toBe(true);
      expect(ready.exporter.refusingAll?.status).toBe(400);
      expect(ready.exporter.refusingAll?.message).toContain('injected failure');
      expect(ready.spool.records).toBe(1000);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^bridge_export_refusing 1$/m);
      expect(metrics).toMatch(/^bridge_events_rejected_total\{reason="invalid"\} 0$/m);
      // The log line travels through the child's stdout pipe: it may come after /readyz answered.
      const refusalLogged = /collector refuses every record.*"status":400|"status":400.*collector refuses every record/;
      await until(() => refusalLogged.test(d.output()), 'the refusal in the log', 20_000);
      // Not splitting every batch again and again: once the refusal is known, a round is an empty
      // probe and each claim sent whole, so a window of requests carries at most one record count
      // per claim in flight (concurrency 3); halving would show counts of 50, 25, 12, …
      const windowCounts = (): Set<number> =>
        new Set(
          h.receiver.requests
            .slice(-30)
            .map((r) => r.records)
            .filter((n) => n > 0),
        );
      const from = h.receiver.requests.length;
      await until(
        () => h.receiver.requests.length >= from + 30 && windowCounts().size <= 3,
        'rounds that send each claim whole',
        30_000,
      );

      h.receiver.behaviour = {};
      expect(await exited(d), d.output()).toBe(0);
      expect(h.tally(['refused'])[0]).toMatchObject({ unique: 1000, missing: 0 });
    } finally {
      if (d.exitCode === null) d.kill('SIGKILL');
    }
  }, 60_000);
});
