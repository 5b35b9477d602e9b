// A collector that refuses every request (400 for all: a gateway with a wrong header, a gzip
// mismatch, another tenant) is the collector's or the configuration's failure, not the records':
// the daemon (a real child process, `run --until-ended`) keeps every record spooled, says so in
// /readyz, /metrics and its log, does not exit, and delivers everything once the collector accepts
// again. (A true poison record next to accepted ones is still isolated and dropped alone: see
// test/unit/export/delivery.test.ts.)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, harness, sleep, spawnDaemon, until, type Harness } from '../../helpers/harness.js';

let h: Harness;
afterEach(async () => h?.close());

const CONFIG = `
spool: { commit_interval: 10ms }
upstream: { idle_timeout: 3s, backoff: { initial: 20ms, max: 200ms } }
exporter: { timeout: 2s, batch_max_records: 100, concurrency: 3, backoff: { initial: 50ms, max: 400ms } }
shutdown: { grace: 3s }
`;

async function httpUrl(output: () => string): Promise<string> {
  await until(() => /HTTP surface listening on (http:\/\/[0-9.]+:\d+)/.test(output()), 'the HTTP surface', 20_000);
  return /HTTP surface listening on (http:\/\/[0-9.]+:\d+)/.exec(output())![1]!;
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
      await sleep(3000);
      expect(d.exitCode, d.output()).toBe(null);
      expect(h.receiver.records.length).toBe(0);
      const ready = (await (await fetch(`${url}/readyz`)).json()) as {
        exporter: { failing: boolean; refusingAll?: { status: number; message: string } };
        spool: { records: number };
      };
      expect(ready.exporter.failing).toBe(true);
      expect(ready.exporter.refusingAll?.status).toBe(400);
      expect(ready.exporter.refusingAll?.message).toContain('injected failure');
      expect(ready.spool.records).toBe(1000);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^bridge_export_refusing 1$/m);
      expect(metrics).toMatch(/^bridge_events_rejected_total\{reason="invalid"\} 0$/m);
      expect(d.output()).toMatch(
        /collector refuses every record.*"status":400|"status":400.*collector refuses every record/,
      );
      // Backing off, not splitting every batch again and again.
      const refusedSoFar = h.receiver.requests.length;
      await sleep(1000);
      expect(h.receiver.requests.length - refusedSoFar).toBeLessThan(60);

      h.receiver.behaviour = {};
      expect(await exited(d), d.output()).toBe(0);
      expect(h.tally(['refused'])[0]).toMatchObject({ unique: 1000, missing: 0 });
    } finally {
      if (d.exitCode === null) d.kill('SIGKILL');
    }
  }, 60_000);
});
