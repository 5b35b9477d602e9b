// What a page prints of its cookies and forms, through a real Chromium: `document.cookie` (the
// Cookie header's content, which the header rule masks whole) printed alone and as a later
// argument, and a urlencoded form built with URLSearchParams. Mapped with the default options, no
// cookie value and no secret-named form field may reach a log record; prose with `=` stays.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
import { describe, expect, it } from 'vitest';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { chromiumUnderTest, findChromium } from '../devkit/chromium.js';
import { mapServiceEvents, pageEventsForSuite } from '../devkit/chromium-page-events.js';

const chromium = findChromium();

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
  const events = pageEventsForSuite(chromium, PAGE, { 'set-cookie': 'sid=SECRET-SID; Path=/' });

  const mapAll = (): BridgeLogRecord[] => mapServiceEvents(events, 's-printed');

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
