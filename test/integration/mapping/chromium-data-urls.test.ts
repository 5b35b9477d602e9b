// Credentials a page puts in `data:` URLs, through a real Chromium: it fetches a JSON document, a
// urlencoded form and base64 JSON written as `data:` URLs (as pages build an export or hand a
// config to a worker), and frames a `data:` document with a password field filled in. Chromium
// reports each as a request whose `url` is the whole `data:` URL; mapped with the default options,
// no secret in such a payload may reach a log record, and the rest of the payload stays readable.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
import { describe, expect, it } from 'vitest';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { chromiumUnderTest, findChromium } from '../devkit/chromium.js';
import { mapServiceEvents, pageEventsForSuite } from '../devkit/chromium-page-events.js';

const chromium = findChromium();

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
  const events = pageEventsForSuite(chromium, PAGE);

  const mapAll = (): BridgeLogRecord[] => mapServiceEvents(events, 's-data');

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
