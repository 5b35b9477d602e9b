// Run as a child process by connection-throws.test.ts: requests whose connection cannot even be
// opened (a step that throws instead of emitting 'error'), each with a short connect timeout. The
// process must outlive every such timer; before the fix the timer reached a `cancel` that was never
// initialized and the process died with a ReferenceError (exit 1). Prints one JSON line: each
// request's error.
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { HttpClient, type HttpClientOptions } from '../../../src/util/http-client.js';

const CONNECT_TIMEOUT_MS = 100;
const NOT_A_KEY = 'this is not a PEM private key\n';

/** A CONNECT proxy on loopback: the tunnel opens, so the peer's TLS starts in the tunnel's handler. */
const proxy = createServer();
proxy.on('connect', (req: IncomingMessage, client: Socket) => {
  const [host, port] = String(req.url).split(':');
  const upstream = connect(Number(port), host, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    upstream.pipe(client).pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
});
/** Something listening, so the TCP step succeeds and the TLS step is reached. */
const peer = createServer((_req, res) => res.end());
await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
const proxyPort = (proxy.address() as AddressInfo).port;
const peerUrl = `https://127.0.0.1:${(peer.address() as AddressInfo).port}/v1/logs`;

const cases: Array<[string, Omit<HttpClientOptions, 'headersTimeoutMs' | 'bodyTimeoutMs'>]> = [
  [
    'raw % in the proxy password',
    { env: { HTTPS_PROXY: `http://user:50%off@127.0.0.1:${proxyPort}` }, connectTimeoutMs: CONNECT_TIMEOUT_MS },
  ],
  [
    'a client key that is not PEM, direct',
    { env: {}, tls: { key: NOT_A_KEY, cert: NOT_A_KEY }, connectTimeoutMs: CONNECT_TIMEOUT_MS },
  ],
  [
    'a client key that is not PEM, through a proxy',
    {
      env: { HTTPS_PROXY: `http://127.0.0.1:${proxyPort}` },
      tls: { key: NOT_A_KEY, cert: NOT_A_KEY },
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
    },
  ],
];

const errors: Record<string, string> = {};
for (const [name, options] of cases) {
  const client = new HttpClient({ ...options, headersTimeoutMs: 0, bodyTimeoutMs: 0 });
  try {
    const res = await client.request(peerUrl, { method: 'POST', body: Buffer.from('x') });
    res.body.resume();
    errors[name] = `answered ${res.statusCode}`;
  } catch (err) {
    errors[name] = (err as Error).message;
  }
  // Past the connect timer of that request (armed before it, due sooner: timers fire in due order).
  await new Promise((r) => setTimeout(r, CONNECT_TIMEOUT_MS * 3));
  client.close();
}
proxy.close();
peer.close();
process.stdout.write(`${JSON.stringify(errors)}\n`);
