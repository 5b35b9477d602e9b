// `tail` against a service whose frame ids and error messages carry terminal escape sequences
// (a real HTTP server on port 0, the real CLI as a child process): nothing of them reaches stderr
// as a control character; the text is still shown, with U+FFFD where a control character was.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from './cli-process.js';

const ESC = '\u001b';
let server: Server;
let url: string;

beforeEach(async () => {
  let calls = 0;
  server = createServer((_req, res) => {
    if (calls++ === 0) {
      // An undecodable frame whose id: line clears the screen and sets the window title.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`id: 1${ESC}[2J${ESC}]0;owned\u0007\ndata: {not json\n\n`);
      return;
    }
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'forbidden', message: `denied ${ESC}[31mRED${ESC}[0m\rOVERWRITE` }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

it('frame ids and upstream error texts are printed without control characters', async () => {
  const r = await runCli(['tail', 'sess'], { BROWSER_API_URL: url, BROWSER_API_KEY: 'k', BRIDGE_CONFIG: '' });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/undecodable frame \(id 1\ufffd\[2J\ufffd\]0;owned\ufffd\)/);
  expect(r.stderr).toMatch(/denied \ufffd\[31mRED\ufffd\[0m\ufffdOVERWRITE/);
  // eslint-disable-next-line no-control-regex
  expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
}, 30_000);

// C1 controls (U+009B is CSI, U+009D OSC: terminals that read UTF-8 act on them as on ESC [ and
// ESC ]) and bidi overrides are valid raw inside a JSON string: an envelope carrying them parses,
// and `-o json` printed the frame as received. The JSON line keeps the value, written as \u escapes.
it('-o json writes C1 controls and bidi overrides in event data as \\u escapes, and pretty output as U+FFFD', async () => {
  const text = 'a\u009b2J\u009d0;owned\u0007\u202eb\u2066c';
  const envelope = {
    seq: 1,
    event: {
      type: 'console_log',
      category: 'console',
      ts: 1_700_000_000_000_000,
      source: { kind: 'cdp', event: 'Runtime.consoleAPICalled', metadata: {} },
      data: { level: 'log', text },
    },
  };
  await new Promise<void>((r) => server.close(() => r()));
  let streams = 0;
  server = createServer((req, res) => {
    // One stream per run of tail, then the session has ended (404).
    if (req.url?.includes('/telemetry/stream') && streams++ % 2 === 0) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The raw characters, as a service's encoder may leave them (JSON.stringify does; only \u0007 is escaped).
      res.end(`id: 1\ndata: ${JSON.stringify(envelope)}\n\n`);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'not_found', message: 'no such session' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = { BROWSER_API_URL: url, BROWSER_API_KEY: 'k', BRIDGE_CONFIG: '' };
  const json = await runCli(['tail', 'sess', '-o', 'json', '--from', '1'], env);
  const line = json.stdout.split('\n')[0]!;
  expect(line).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  expect((JSON.parse(line) as typeof envelope).event.data.text).toBe(text);
  const pretty = await runCli(['tail', 'sess', '--from', '1', '--no-color'], env);
  // eslint-disable-next-line no-control-regex
  expect(pretty.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  expect(pretty.stdout).toContain('a\ufffd2J\ufffd0;owned\ufffd\ufffdb\ufffdc');
}, 30_000);
