// Discovery as a user runs it from a clean clone: `simulate` creating tagged sessions over time and
// `run` with only a tag selector (no session named), both real processes; every event of every
// matching session reaches the collector, and nothing of the others.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import { tallyDelivery } from '../../../src/devkit/demo/delivery-tally.js';
import { runCli, startCli, type CliProcess } from './cli-process.js';

const running: CliProcess[] = [];
let receiver: Receiver | undefined;
let dir: string | undefined;
afterEach(async () => {
  for (const p of running.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface SimSummary {
  id: string;
  lastSeq: number;
  ended: boolean;
  tags: Record<string, string>;
}

describe('discovery with real processes', () => {
  it('simulate --create-every with tags, and a bridge with only a tag selector: every event of every matching session arrives', async () => {
    // Each session lives 6 s: the first must still be live when the bridge, started after the
    // simulator (a CLI process each, seconds apart on a loaded machine), first reads the list.
    const sim = startCli(
      [
        'simulate',
        '--port',
        '0',
        '--create-every',
        '400ms',
        '--create-max',
        '5',
        '--create-lifetime',
        '6s',
        '--tags',
        'team=a',
        '--rate',
        '40',
      ],
      {},
    );
    running.push(sim);
    await sim.waitFor(/\{"url":"[^"]+"\}\n/, 'stdout');
    const simUrl = (JSON.parse(sim.stdout()) as { url: string }).url;
    await sim.waitFor(/a new one every 400ms tagged team=a/);
    // Another team's session, which the selector must leave alone.
    await fetch(`${simUrl}/_sim/sessions/other-team`, {
      method: 'POST',
      body: JSON.stringify({ tags: { team: 'b' }, rate: 40 }),
    });

    receiver = await startReceiver();
    dir = mkdtempSync(join(tmpdir(), 'discovery-proc-'));
    const bridge = startCli(['run'], {
      BROWSER_API_URL: simUrl,
      BROWSER_API_KEY: 'sim-key',
      BRIDGE_STATE_DIR: join(dir, 'state'),
      BRIDGE_LISTEN: '127.0.0.1:0',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      BRIDGE_DISCOVER: 'true',
      BRIDGE_DISCOVER_TAGS: 'team=a',
      BRIDGE_DISCOVER_INTERVAL: '500ms',
      LOG_LEVEL: 'info',
    });
    running.push(bridge);

    // /v1/sessions and top show where each session came from.
    await bridge.waitFor(/HTTP surface listening on http:\/\/[0-9.]+:\d+/);
    const bridgeUrl = /HTTP surface listening on (http:\/\/[0-9.]+:\d+)/.exec(bridge.stderr())![1]!;
    await bridge.waitFor(/discovered new sessions: following them/, 'stderr', 15_000);
    const listed = (await (await fetch(`${bridgeUrl}/v1/sessions`)).json()) as {
      sessions: Array<{ id: string; source: string }>;
    };
    expect(listed.sessions.length).toBeGreaterThan(0);
    expect(listed.sessions.every((x) => x.source === 'discovery')).toBe(true);
    const top = await runCli(['top', '--once', '--url', bridgeUrl], {});
    expect(top.stdout).toMatch(/^SESSION\s+STATE\s+SOURCE\b/m);
    expect(top.stdout).toMatch(/^auto-1-\S+\s+\S+\s+discovery\s/m);

    let sessions: SimSummary[] = [];
    const read = async (): Promise<SimSummary[]> =>
      (sessions = (await (await fetch(`${simUrl}/_sim/sessions`)).json()) as SimSummary[]);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const all = await read();
      const ours = all.filter((s) => s.tags.team === 'a');
      const t = tallyDelivery(
        receiver.records,
        ours.map((s) => s.id),
        (id) => all.find((s) => s.id === id)!.lastSeq,
      );
      if (ours.length === 5 && ours.every((s) => s.ended) && t.every((x) => x.missing === 0)) break;
      if (Date.now() > deadline) throw new Error(`not every event arrived: ${JSON.stringify(t)}\n${bridge.stderr()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const ours = sessions.filter((s) => s.tags.team === 'a');
    for (const t of tallyDelivery(
      receiver.records,
      ours.map((s) => s.id),
      (id) => sessions.find((s) => s.id === id)!.lastSeq,
    )) {
      expect(t.unique).toBeGreaterThan(0);
      expect(t).toMatchObject({ duplicates: 0, gapRecords: 0, missing: 0 });
    }
    expect(receiver.records.filter((r) => r.attributes['browser.session.id'] === 'other-team')).toHaveLength(0);
    expect(bridge.stderr()).toMatch(/discovered new sessions: following them/);
    bridge.child.kill('SIGTERM');
    expect((await bridge.done).code).toBe(0);
  });
});
