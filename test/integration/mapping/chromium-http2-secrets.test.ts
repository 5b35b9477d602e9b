// The headers a real Chromium sends over HTTP/2, as CDP reports them: Network.requestWillBeSentExtraInfo
// holds what went on the wire, the Cookie header and the HTTP/2 pseudo-headers included, and its
// `:path` repeats the request's query. A producer that forwards those headers as they come (the
// service's headers are "forwarded as-is from CDP") must not carry the query's token out through
// `:path` while url.full has it masked. Skipped where no Chromium is installed.
import { createSecureServer, type Http2SecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { makeTestCerts, type TestCerts } from '../../helpers/test-certs.js';
import {
  chromiumUnderTest,
  findChromium,
  openBlankPage,
  startChromium,
  type ChromiumHandle,
} from '../devkit/chromium.js';

const chromium = findChromium();
const WAIT_MS = 25_000;

const PAGE = `<!doctype html><script>
const S = 'SECRET' + '-';
document.cookie = 'sid=' + S + 'COOKIE';
fetch('/api?tokenizer=bpe&access_token=' + S + 'QUERY', { headers: { authorization: 'Bearer ' + S + 'AUTH' } })
  .then((r) => r.text()).then(() => console.log('done'));
</script>`;

describe.skipIf(chromium === undefined)(`HTTP/2 request headers from ${chromiumUnderTest(chromium)}`, () => {
  let certs: TestCerts;
  let server: Http2SecureServer;
  let browser: ChromiumHandle | undefined;
  let url = '';
  let headers: Record<string, unknown> = {};

  beforeAll(async () => {
    certs = makeTestCerts();
    server = createSecureServer({ key: certs.pem.serverKey, cert: certs.pem.serverCert }, (req, res) => {
      res
        .writeHead(200, { 'content-type': req.url === '/' ? 'text/html' : 'text/plain' })
        .end(req.url === '/' ? PAGE : 'ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = startChromium(chromium!, ['--ignore-certificate-errors']);
    const { failed } = browser;
    const cdp = await browser.connect();
    const { sessionId } = await openBlankPage(browser, cdp);
    const ids = new Map<string, string>();
    const sent = new Map<string, Record<string, unknown>>();
    // Chromium's network service reports the sent headers (ExtraInfo) on its own schedule: they may
    // come after the page's console line, so both are waited for.
    let logged = false;
    const apiHeaders = (): boolean => [...ids].some(([id, u]) => u.includes('/api?') && sent.has(id));
    const done = new Promise<void>((resolve, reject) => {
      const bound = setTimeout(
        () => reject(new Error(`no console line and sent headers after ${WAIT_MS / 1000} s`)),
        WAIT_MS,
      );
      cdp.on(({ method, params: p, sessionId: from }) => {
        if (from !== sessionId) return;
        if (method === 'Network.requestWillBeSent') ids.set(p.requestId as string, (p.request as { url: string }).url);
        if (method === 'Network.requestWillBeSentExtraInfo')
          sent.set(p.requestId as string, p.headers as Record<string, unknown>);
        if (method === 'Runtime.consoleAPICalled') logged = true;
        if (logged && apiHeaders()) {
          clearTimeout(bound);
          resolve();
        }
      });
    });
    for (const d of ['Network', 'Runtime']) await Promise.race([failed, cdp.send(`${d}.enable`, {}, sessionId)]);
    await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/` }, sessionId)]);
    await Promise.race([failed, done]);
    const id = [...ids].find(([, u]) => u.includes('/api?'))?.[0];
    url = ids.get(id ?? '') ?? '';
    headers = sent.get(id ?? '') ?? {};
  }, WAIT_MS + 15_000);

  afterAll(async () => {
    await browser?.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    certs.remove();
  });

  it('the headers sent hold the query in :path, the cookie and the authorization', () => {
    expect(headers[':path']).toMatch(/access_token=SECRET-QUERY/);
    expect(headers.cookie).toMatch(/SECRET-COOKIE/);
    expect(headers.authorization).toMatch(/SECRET-AUTH/);
  });

  it('none of them reaches the record; :path keeps what is no secret', () => {
    const mapper = createMapper(defaultMappingOptions);
    const record = mapper.map(
      {
        seq: 1,
        event: {
          ts: 1,
          type: 'network_request',
          category: 'network',
          source: { kind: 'cdp', event: 'Network.requestWillBeSentExtraInfo' },
          data: { url, method: 'GET', headers },
        },
      },
      { sessionId: 's-h2', attributes: {}, epoch: 0 },
      1,
    )!;
    expect(JSON.stringify(record).match(/SECRET-[A-Z]+/g) ?? []).toEqual([]);
    expect((record.body as { headers: Record<string, unknown> }).headers[':path']).toBe(
      '/api?tokenizer=bpe&access_token=REDACTED',
    );
  });
});
