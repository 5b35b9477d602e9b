// Why spans do not go out, where the operator sees why records do not: /readyz (`traces.lastError`
// beside `exporter.lastError`), `top` and the status line, in the words of the records' delivery
// (src/export/outcome-label.ts): `HTTP 503: …`, `network: ECONNREFUSED`. Before, the span exporter
// kept no last error: a traces endpoint down for hours showed nowhere but in the log. Real sockets:
// the bridge in this process with its HTTP surface, a traces endpoint that answers 503 or is closed,
// and `top` as a child process.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { summarize, formatStatusLine } from '../../../src/cli/status-reporter.js';
import { eventually, startInProcess, startWorld, type RunningBridge, type World } from '../server/bridge-harness.js';
import { runCli } from '../cli/cli-process.js';
import { freePort } from '../../helpers/free-port.js';

let world: World | undefined;
let running: RunningBridge | undefined;
let endpoint: Server | undefined;
afterEach(async () => {
  await running?.stop(Date.now());
  await world?.close();
  endpoint?.closeAllConnections();
  await new Promise<void>((r) => (endpoint ? endpoint.close(() => r()) : r()));
  running = world = endpoint = undefined;
});

interface Ready {
  status: string;
  exporter: { failing: boolean; lastError?: string };
  traces?: { failing: boolean; lastError?: string; queued?: number };
}

/** A traces endpoint that answers every request 503 with a text body. */
async function unavailable(): Promise<string> {
  endpoint = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('traces pipeline overloaded');
    });
  });
  await new Promise<void>((r) => endpoint!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1/traces`;
}

/** A bridge following one session with spans on, sent to `tracesUrl`; resolves with /readyz once spans fail. */
async function failingTraces(tracesUrl: string): Promise<Ready> {
  world = await startWorld();
  const s = world.sim.createSession('t1');
  running = await startInProcess(
    world,
    { sessions: ['t1'] },
    { BRIDGE_TRACES: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: tracesUrl },
  );
  s.emit(300);
  s.end();
  return eventually(async () => {
    const body = (await (await fetch(`${running!.url}/readyz`)).json()) as Ready;
    return body.traces?.failing === true ? body : undefined;
  }, 'the traces exporter reported failing');
}

describe('the span exporter says why it fails, as delivery does', () => {
  it('a traces endpoint answering 503: /readyz, top and the status line say "HTTP 503: …"; records are not affected', async () => {
    const ready = await failingTraces(await unavailable());
    expect(ready.status).toBe('ready');
    expect(ready.exporter).toEqual({ failing: false });
    expect(ready.traces?.lastError).toBe('HTTP 503: traces pipeline overloaded');
    expect(ready.traces?.queued).toBeGreaterThan(0);

    const top = await runCli(['top', '--once', '--url', running!.url], {});
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('traces failing: HTTP 503: traces pipeline overloaded');
    expect(formatStatusLine(summarize(running!.bridge), undefined, 0)).toContain(
      'TRACES FAILING: HTTP 503: traces pipeline overloaded',
    );
  });

  it('a traces endpoint refusing connections: "network: ECONNREFUSED"', async () => {
    const ready = await failingTraces(`http://127.0.0.1:${await freePort()}/v1/traces`);
    expect(ready.exporter).toEqual({ failing: false });
    expect(ready.traces?.lastError).toBe('network: ECONNREFUSED');
  });
});
