// The real `run` daemon (a child process) against a collector whose /v1/traces answers 404, then
// accepts: what an operator sees from outside. /metrics says bridge_traces_unsupported 1 and then
// 0, /readyz stays ready with traces.lastError naming the missing pipeline, the log says it once,
// the records all arrive meanwhile and the spans after the pipeline appears
// (traces.unsupported_retry shortened in the configuration file).
import type { Server } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectorFront } from '../../helpers/collector-front.js';
import { freePort } from '../../helpers/free-port.js';
import { exited, harness, spawnDaemon, until, type Harness } from '../../helpers/harness.js';

const ID = 'np-daemon';

let h: Harness | undefined;
let front: Server | undefined;
let daemon: ReturnType<typeof spawnDaemon> | undefined;
afterEach(async () => {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    daemon.kill('SIGKILL');
    await exited(daemon);
  }
  daemon = undefined;
  await h?.close();
  h = undefined;
  front?.closeAllConnections();
  await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
  front = undefined;
});

/** The value of an unlabelled gauge in a /metrics text, or undefined when absent. */
const gauge = (text: string, name: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
};

describe('the daemon against a collector without a traces pipeline', () => {
  it('says so on /metrics, /readyz and once in the log; records flow; the gauge clears with a pipeline', async () => {
    h = await harness();
    let pipeline = false;
    const f = await collectorFront(h.receiver.url, (_n, _body, forward) =>
      pipeline ? forward() : { status: 404, contentType: 'text/plain', body: '404 page not found' },
    );
    front = f.server;
    const config = join(h.stateDir, 'bridge.yaml');
    writeFileSync(config, 'traces:\n  unsupported_retry: 1s\n');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const session = h.sim.createSession(ID);
    session.emit(300);
    session.end();
    daemon = spawnDaemon(
      h.env({
        BRIDGE_SESSIONS: ID,
        BRIDGE_CONFIG: config,
        BRIDGE_TRACES: 'true',
        BRIDGE_LISTEN: `127.0.0.1:${port}`,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${f.url}/v1/traces`,
      }),
    );
    const metrics = async (): Promise<string> => (await fetch(`${base}/metrics`)).text();
    let text = '';
    await until(() => h!.received(ID) === session.lastSeq, 'every record delivered', 30_000);
    expect(h.tally([ID])[0]).toMatchObject({ missing: 0 });
    for (let i = 0; i < 200 && gauge(text, 'bridge_traces_unsupported') !== 1; i++) {
      text = await metrics().catch(() => '');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(gauge(text, 'bridge_traces_unsupported')).toBe(1);
    const ready = (await (await fetch(`${base}/readyz`)).json()) as {
      status: string;
      traces?: { failing: boolean; lastError?: string; queued?: number };
    };
    expect(ready.status).toBe('ready');
    expect(ready.traces).toMatchObject({
      failing: true,
      lastError: 'no traces pipeline: HTTP 404: 404 page not found',
    });
    expect(ready.traces?.queued).toBeGreaterThan(0);

    pipeline = true;
    for (let i = 0; i < 200 && gauge(text, 'bridge_traces_unsupported') !== 0; i++) {
      text = await metrics();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(gauge(text, 'bridge_traces_unsupported')).toBe(0);
    await until(() => h!.receiver.spans.length >= ready.traces!.queued!, 'the spans received');
    daemon.kill('SIGTERM');
    expect(await exited(daemon)).toBe(0);
    const said = daemon
      .output()
      .split('\n')
      .filter((l) => l.includes('the collector has no traces pipeline'));
    expect(said).toHaveLength(1);
  });
});
