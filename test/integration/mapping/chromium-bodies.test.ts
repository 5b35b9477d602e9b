// A real Chromium session (headless, driven over the DevTools protocol on loopback) loads a page
// from a local server; the page fetches a 9 KB JSON token answer with a refresh_token in it and
// logs a signed URL to the console. What the browser reports is turned into the events the
// service sends (a captured string over 8,192 bytes cut with `...[truncated]`, the service's
// capture rule, as the simulator applies it), mapped with the default options, and shown by
// `tail`: the refresh_token and the signature must be gone, the rest of the body readable.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
//
// Every wait below also ends, with what was missing, when the browser exits, the protocol
// connection closes or a protocol call fails: a browser that died under load (or a call refused)
// fails the test at once with its reason, instead of leaving it waiting for the test's time limit.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { capString } from '../../../src/devkit/simulator/events/context.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { createTailView } from '../../../src/cli/tail-view.js';
import type { Envelope } from '../../../src/upstream/envelope.js';
import { findChromium, openBlankPage, startChromium, type ChromiumHandle } from '../devkit/chromium.js';

const chromium = findChromium();

const REFRESH = 'rt-SECRET-8f3a9c2e71d04b5a';
const SIGNED = 'https://files.example.com/r.pdf?X-Amz-Credential=AK%2F1&X-Amz-Signature=SECRET-5e1f';

/** The token answer: about 9 KB, the refresh_token past the first 8,192 bytes' middle. */
const tokenBody = JSON.stringify({
  access_token_expires_in: 3600,
  profile: { id: 42, name: 'Alice', addresses: Array.from({ length: 40 }, (_, i) => ({ street: `${i} Main St` })) },
  refresh_token: REFRESH,
  history: Array.from({ length: 160 }, (_, i) => ({ order: i, status: 'shipped', note: 'left at the door' })),
});

const PAGE = `<!doctype html><html><body><script>
fetch('/token').then((r) => r.text()).then(() => console.log('report ready: ${SIGNED}'));
</script></body></html>`;

describe.skipIf(chromium === undefined)('a real Chromium session', () => {
  let server: Server;
  let browser: ChromiumHandle | undefined;
  let base: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/token') res.writeHead(200, { 'content-type': 'application/json' }).end(tokenBody);
      else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = startChromium(chromium!);
  });

  afterAll(async () => {
    await browser?.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('masks the refresh_token of a 9 KB JSON answer the service cut, and a signed URL in the console', async () => {
    const { failed } = browser!;
    const cdp = await browser!.connect();
    const { sessionId } = await openBlankPage(browser!, cdp);

    const seen = new Promise<{ body: string; url: string; status: number; consoleText: string }>((resolve, reject) => {
      let token: { requestId: string; url: string; status: number } | undefined;
      let body: string | undefined;
      let consoleText: string | undefined;
      const missing = (): string =>
        `token answer ${token ? 'seen' : 'not seen'}, body ${body === undefined ? 'not read' : 'read'}, console ${consoleText === undefined ? 'not seen' : 'seen'}`;
      void failed.catch((err: Error) => reject(new Error(`${err.message} (${missing()})`)));
      const done = (): void => {
        if (token !== undefined && body !== undefined && consoleText !== undefined)
          resolve({ body, url: token.url, status: token.status, consoleText });
      };
      cdp.on((msg) => {
        if (msg.sessionId !== sessionId) return;
        const p = msg.params;
        if (msg.method === 'Network.responseReceived') {
          const response = p.response as { url: string; status: number };
          if (response.url.endsWith('/token'))
            token = { requestId: p.requestId as string, url: response.url, status: response.status };
        } else if (msg.method === 'Network.loadingFinished' && token !== undefined && p.requestId === token.requestId) {
          cdp.send('Network.getResponseBody', { requestId: p.requestId }, sessionId).then(
            (r) => {
              body = r.body as string;
              done();
            },
            (err: Error) => reject(new Error(`Network.getResponseBody: ${err.message} (${missing()})`)),
          );
        } else if (msg.method === 'Runtime.consoleAPICalled') {
          consoleText = (p.args as Array<{ value?: unknown }>).map((a) => String(a.value)).join(' ');
          done();
        }
      });
    });
    await Promise.race([failed, cdp.send('Network.enable', {}, sessionId)]);
    await Promise.race([failed, cdp.send('Runtime.enable', {}, sessionId)]);
    await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/` }, sessionId)]);
    const got = await seen;
    await browser!.stop();

    // What the browser gave is the whole answer; the service cuts it (capture rule 4).
    expect(got.body).toBe(tokenBody);
    expect(Buffer.byteLength(got.body)).toBeGreaterThan(9000);
    const captured = capString(got.body);
    expect(captured.truncated).toBe(true);
    expect(captured.value).toContain(REFRESH);
    expect(() => JSON.parse(captured.value) as unknown).toThrow();

    const envelopes: Envelope[] = [
      {
        seq: 1,
        event: {
          ts: 1,
          type: 'network_response',
          category: 'network',
          source: { kind: 'cdp', event: 'Network.loadingFinished' },
          data: { url: got.url, status: got.status, mime_type: 'application/json', body: captured.value },
        },
      },
      {
        seq: 2,
        event: {
          ts: 2,
          type: 'console_log',
          category: 'console',
          source: { kind: 'cdp', event: 'Runtime.consoleAPICalled' },
          data: { url: `${base}/`, level: 'log', text: got.consoleText, args: [got.consoleText] },
        },
      },
    ];
    const mapper = createMapper(defaultMappingOptions);
    const tail = createTailView(defaultMappingOptions.redaction, true);
    const ctx = { sessionId: 's-chromium', attributes: {}, epoch: 0 };
    const [response, consoleLog] = envelopes.map((e) => mapper.map(e, ctx, 1)!);
    const masked = (response!.body as { body: string }).body;
    expect(masked).not.toContain(REFRESH);
    expect(masked).toContain('"refresh_token":"REDACTED"');
    // The rest stays readable, the cut marker included.
    expect(masked).toContain('"profile":{"id":42,"name":"Alice"');
    expect(masked).toMatch(/"history":\[\{"order":0,"status":"shipped"/);
    expect(masked.endsWith('...[truncated]')).toBe(true);
    expect(consoleLog!.body).toMatchObject({
      text: 'report ready: https://files.example.com/r.pdf?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED',
    });
    for (const [i, e] of envelopes.entries()) {
      const record = i === 0 ? response! : consoleLog!;
      expect(JSON.stringify(record)).not.toMatch(/SECRET-/);
      expect(tail.json(e, JSON.stringify(e))).not.toMatch(/SECRET-/);
    }
  });
});
