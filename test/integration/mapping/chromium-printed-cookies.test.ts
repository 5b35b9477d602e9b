// What a page prints of its cookies and forms, through a real Chromium: `document.cookie` (the
// Cookie header's content, which the header rule masks whole) printed alone and as a later
// argument, and a urlencoded form built with URLSearchParams. Mapped with the default options, no
// cookie value and no secret-named form field may reach a log record; prose with `=` stays.
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

// Secrets made at run time (or set by the server), so the page's own source holds none.
const PAGE = `<!doctype html><title>prefs</title><body><script>
const S = 'SECRET' + '-';
(async () => {
  document.cookie = 'prefs=' + S + 'PREFS; path=/';
  console.log(document.cookie);
  console.log('cookies:', document.cookie);
  console.log(new URLSearchParams({ user: 'alice', password: S + 'FORM' }).toString());
  console.log('retry=3');
  console.log('set x = 5; y = 6 for the layout');
  console.log('done');
})();
</script></body>`;

describe.skipIf(chromium === undefined)(`printed cookies and forms against ${chromiumUnderTest(chromium)}`, () => {
  let server: Server;
  let browser: ChromiumHandle | undefined;
  const events: ServiceEvent[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=SECRET-SID; Path=/' }).end(PAGE);
    });
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
        const request = params.request as { postData?: string } | undefined;
        if (request?.postData !== undefined) ev.data.post_data = request.postData;
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
    const ctx = { sessionId: 's-printed', attributes: {}, epoch: 0 };
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

  it('the browser printed every secret', () => {
    const sent = JSON.stringify(events);
    for (const s of ['SECRET-SID', 'SECRET-PREFS', 'SECRET-FORM']) expect(sent, s).toContain(s);
  });

  it('no cookie value or secret field reaches a record; prose with = stays', () => {
    const text = JSON.stringify(mapAll());
    expect(text.match(/SECRET-[A-Za-z0-9]+/g) ?? []).toEqual([]);
    expect(text).toContain('"text":"sid=REDACTED; prefs=REDACTED"');
    expect(text).toContain('"args":["cookies:","sid=REDACTED; prefs=REDACTED"]');
    expect(text).toContain('user=alice&password=REDACTED');
    expect(text).toContain('"text":"retry=3"');
    expect(text).toContain('set x = 5; y = 6 for the layout');
  });
});
