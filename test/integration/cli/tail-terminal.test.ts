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
