// A process that could not run for longer than its request's timeouts (SIGSTOP, a frozen VM, a loop
// blocked) finds, when it runs again, its timers due before the answer waiting in its socket is
// read (libuv runs timers before it polls the sockets). The answer came in time: the request must
// take it, not fail with a timeout and have its records sent again. The peer is a child process,
// so it answers while this process is blocked.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { HttpClient } from '../../../src/util/http-client.js';

const PEER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    process.stdout.write('got\\n');
    if (req.url === '/head-then-body') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
      res.flushHeaders();
      setTimeout(() => res.end('ok'), 300);
    } else setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), 50);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

let peer: ChildProcess | undefined;
let client: HttpClient | undefined;
afterEach(() => {
  client?.close();
  peer?.kill('SIGKILL');
});

/** The peer's port, and a function that resolves on each line it writes. */
async function startPeer(): Promise<{ url: string; next: () => Promise<string> }> {
  peer = spawn(process.execPath, ['-e', PEER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: peer.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => String((await lines.next()).value);
  return { url: `http://127.0.0.1:${await next()}`, next };
}

/** This thread stops for `ms`: nothing of it runs, its timers come due, the peer goes on. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const read = async (body: AsyncIterable<Buffer>): Promise<string> => {
  let text = '';
  for await (const chunk of body) text += String(chunk);
  return text;
};

it('takes an answer that arrived while the process was paused past its headers timeout and its deadline', async () => {
  const { url, next } = await startPeer();
  client = new HttpClient({ connectTimeoutMs: 5000, headersTimeoutMs: 300, bodyTimeoutMs: 300, env: {} });
  const answer = client.request(`${url}/answer`, {
    method: 'POST',
    body: Buffer.from('x'),
    signal: AbortSignal.timeout(300),
  });
  expect(await next()).toBe('got');
  pause(1500);
  const res = await answer;
  expect([res.statusCode, await read(res.body)]).toEqual([200, 'ok']);
});

it('takes a body that arrived while the process was paused past its body timeout', async () => {
  const { url, next } = await startPeer();
  client = new HttpClient({ connectTimeoutMs: 5000, headersTimeoutMs: 5000, bodyTimeoutMs: 300, env: {} });
  const res = await client.request(`${url}/head-then-body`, { method: 'POST', body: Buffer.from('x') });
  expect(await next()).toBe('got');
  pause(1500);
  expect([res.statusCode, await read(res.body)]).toEqual([200, 'ok']);
});
