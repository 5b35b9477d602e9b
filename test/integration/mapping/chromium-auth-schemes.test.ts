// Credentials after an authentication scheme's name where no name rule looks, through a real
// Chromium: a page prints the Authorization header it builds, a curl line, an error text that
// quotes a Basic credential, and posts a text/plain body holding a Bearer header line. Mapped with
// the default options, no such credential may reach a log record, and prose that only names a
// scheme (`Bearer token missing`, `Basic auth required`) stays.
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
const BASIC = Buffer.from('alice:SECRET-BASIC').toString('base64');

// Secrets made at run time, so the page's own source holds none.
const PAGE = `<!doctype html><title>api</title><body><script>
const S = 'SECRET' + '-';
(async () => {
  console.log('retrying with Authorization: Bearer ' + S + 'LOG1a2b');
  console.log('curl -H "Authorization: bearer ' + S + 'CURL9z" ' + location.origin + '/api');
  console.error(new Error('401 for Basic ' + btoa('alice:' + S + 'BASIC')).message);
  await fetch('/api', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Authorization: Bearer ' + S + 'BODY7q' });
  console.warn('Bearer token missing; Basic auth required');
  console.log('done');
})();
</script></body>`;

describe.skipIf(chromium === undefined)(
  `credentials after an authentication scheme against ${chromiumUnderTest(chromium)}`,
  () => {
    let server: Server;
    let browser: ChromiumHandle | undefined;
    const events: ServiceEvent[] = [];

    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
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
      const ctx = { sessionId: 's-auth', attributes: {}, epoch: 0 };
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

    it('the browser reported every credential', () => {
      const sent = JSON.stringify(events);
      for (const s of ['SECRET-LOG1a2b', 'SECRET-CURL9z', 'SECRET-BODY7q', BASIC]) expect(sent, s).toContain(s);
    });

    it('no credential reaches a record; prose naming a scheme stays', () => {
      const text = JSON.stringify(mapAll());
      expect(text.match(/SECRET-[A-Za-z0-9]+/g) ?? []).toEqual([]);
      expect(text).not.toContain(BASIC);
      expect(text).toContain('retrying with Authorization: Bearer REDACTED');
      expect(text).toContain('401 for Basic REDACTED');
      expect(text).toContain('"post_data":"Authorization: Bearer REDACTED"');
      expect(text).toContain('Bearer token missing; Basic auth required');
    });
  },
);
