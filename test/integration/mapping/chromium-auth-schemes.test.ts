// Credentials after an authentication scheme's name where no name rule looks, through a real
// Chromium: a page prints the Authorization header it builds, a curl line, an error text that
// quotes a Basic credential, and posts a text/plain body holding a Bearer header line. Mapped with
// the default options, no such credential may reach a log record, and prose that only names a
// scheme (`Bearer token missing`, `Basic auth required`) stays.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
import { describe, expect, it } from 'vitest';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { chromiumUnderTest, findChromium } from '../devkit/chromium.js';
import { mapServiceEvents, pageEventsForSuite } from '../devkit/chromium-page-events.js';

const chromium = findChromium();
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
    const events = pageEventsForSuite(chromium, PAGE);

    const mapAll = (): BridgeLogRecord[] => mapServiceEvents(events, 's-auth');

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
