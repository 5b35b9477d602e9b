// Credentials a page puts in `data:` URLs, through a real Chromium: it fetches a JSON document, a
// urlencoded form and base64 JSON written as `data:` URLs (as pages build an export or hand a
// config to a worker), and frames a `data:` document with a password field filled in. Chromium
// reports each as a request whose `url` is the whole `data:` URL; mapped with the default options,
// no secret in such a payload may reach a log record, and the rest of the payload stays readable.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import {
  chromiumUnderTest,
  findChromium,
  openBlankPage,
  startChromium,
  type ChromiumHandle,
} from '../devkit/chromium.js';
import { serviceEvent, type ServiceEvent } from '../devkit/service-events.js';

const chromium = findChromium();
const WAIT_MS = 25_000;

// Secrets made at run time, so the page's own source holds none.
const PAGE = `<!doctype html><title>export</title><body><script>
const S = 'SECRET' + '-';
(async () => {
  await fetch('data:application/json,' + encodeURIComponent(JSON.stringify({ user: 'alice', access_token: S + 'JSON' })));
  await fetch('data:application/x-www-form-urlencoded,user=alice&password=' + S + 'FORM');
  await fetch('data:application/json;base64,' + btoa(JSON.stringify({ user: 'alice', client_secret: S + 'BASE64' })));
  const frame = document.createElement('iframe');
  frame.src = 'data:text/html,' + encodeURIComponent('<input name="user" value="alice"><input type="password" value="' + S + 'HTML">');
  await new Promise((resolve) => { frame.onload = resolve; document.body.append(frame); });
  console.log('done');
})();
</script></body>`;

describe.skipIf(chromium === undefined)(`credentials in data: URLs against ${chromiumUnderTest(chromium)}`, () => {
  let server: Server;
  let browser: ChromiumHandle | undefined;
  const events: ServiceEvent[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = startChromium(chromium!);
    const { failed } = browser;
    const cdp = await browser.connect();
    const { sessionId } = await openBlankPage(browser, cdp);
    const done = new Promise<void>((resolve, reject) => {
      const bound = setTimeout(() => reject(new Error(`no last console line after ${WAIT_MS / 1000} s`)), WAIT_MS);
      cdp.on(({ method, params, sessionId: from }) => {
        if (from !== sessionId) return;
        const ev = serviceEvent(method, params);
        if (ev === undefined) return;
        events.push(ev);
        if (method === 'Runtime.consoleAPICalled' && ev.data.text === 'done') {
          clearTimeout(bound);
          resolve();
        }
      });
    });
    for (const d of ['Network', 'Runtime', 'Page'])
      await Promise.race([failed, cdp.send(`${d}.enable`, {}, sessionId)]);
    await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/` }, sessionId)]);
    await Promise.race([failed, done]);
  }, WAIT_MS + 15_000);

  afterAll(async () => {
    await browser?.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function mapAll(): BridgeLogRecord[] {
    const mapper = createMapper(defaultMappingOptions);
    const ctx = { sessionId: 's-data', attributes: {}, epoch: 0 };
    return events.flatMap((e, i) => {
      const event = {
        ts: 1_760_000_000_000_000 + i,
        type: e.type,
        category: e.category,
        source: { kind: 'cdp' },
        data: e.data,
      };
      return mapper.map({ seq: i + 1, event }, ctx, 1) ?? [];
    });
  }

  it('the browser reported every data: URL with its secret', () => {
    const urls = events.filter((e) => e.type === 'network_request').map((e) => String(e.data.url));
    const sent = urls.map((u) => (u.includes(';base64,') ? atob(u.slice(u.indexOf(',') + 1)) : decodeURIComponent(u)));
    for (const s of ['SECRET-JSON', 'SECRET-FORM', 'SECRET-BASE64', 'SECRET-HTML'])
      expect(sent.join('\n'), s).toContain(s);
  });

  it('no secret of a data: URL reaches a record; the rest of each payload stays', () => {
    const records = mapAll();
    const urls = records
      .filter((r) => r.eventName === 'browser.network_request')
      .map((r) => (r.body as { url: string }).url);
    const read = urls.map((u) => (u.includes(';base64,') ? atob(u.slice(u.indexOf(',') + 1)) : decodeURIComponent(u)));
    const text = JSON.stringify(records) + read.join('\n');
    expect(text.match(/SECRET-[A-Z0-9]+/g) ?? []).toEqual([]);
    expect(read.join('\n')).toContain('{"user":"alice","access_token":"REDACTED"}');
    expect(read.join('\n')).toContain('user=alice&password=REDACTED');
    expect(read.join('\n')).toContain('{"user":"alice","client_secret":"REDACTED"}');
    expect(read.join('\n')).toContain('<input name="user" value="alice"><input type="password" value="REDACTED">');
  });
});
