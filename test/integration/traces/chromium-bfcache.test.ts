// The spans of a tab that goes back to a page Chromium kept in its back/forward cache, against a
// real Chromium: page A loads, the tab goes to page B, then back. Chromium restores A from the cache
// with the loader of its first visit (Page.frameNavigated of type BackForwardCacheRestore, which
// the service forwards as an ordinary page_navigation), fires no load event, and the restored page
// fetches twice: at once in its pageshow handler (`persisted`), and half a second later. What CDP
// reports is turned into the service's events (service-targets.ts), mapped with the default options
// and fed to the span builder. docs/traces.md promises: the restore is a navigation span of its own,
// linked to the first visit, with what the restored page does after it under it; the first visit and
// B end as left. Chromium reports the restore's navigation after the pageshow handlers ran (and
// after sending the restored page's earlier console lines once more), so the first fetch usually
// comes before it in the stream and then stays in the first visit, as a request that outlived its page.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeSpan, SpanRef } from '../../../src/vocabulary/span.js';
import { chromiumUnderTest, findChromium, startChromium, type ChromiumHandle } from '../devkit/chromium.js';
import { browserWaits, followAsService, openTabAsService, targetEvents } from '../devkit/service-targets.js';
import { sessionSpans, type TimedServiceEvent } from '../devkit/service-spans.js';

const chromium = findChromium();
const WAIT_MS = 20_000;
const SESSION = 's-chromium-bfcache';

const PAGE_A = `<!doctype html><title>a</title><script>
addEventListener('pageshow', (e) => {
  if (!e.persisted) { console.log('a shown'); return; }
  fetch('/in-pageshow?token=SECRET-SHOW').catch(() => undefined);
  setTimeout(() => {
    fetch('/after-restore?token=SECRET-RESTORE').then((r) => r.text()).then(() => console.log('a restored'));
  }, 500);
});
</script>`;
const PAGE_B = `<!doctype html><title>b</title><script>console.log('b shown');</script>`;

const nowMicros = (): number => Math.round((performance.timeOrigin + performance.now()) * 1000);

describe.skipIf(chromium === undefined)(
  `a page restored from the back/forward cache against ${chromiumUnderTest(chromium)}`,
  () => {
    let server: Server;
    let browser: ChromiumHandle | undefined;
    let base = '';
    const events: TimedServiceEvent[] = [];
    /** The type of each top-level Page.frameNavigated, by the loader it committed (the last one's). */
    const navigationTypes = new Map<string, string>();
    /** Why Chromium did not restore a page from its cache (Page.backForwardCacheNotUsed), if it said. */
    const notUsed: string[] = [];
    let refs: Array<{ event: TimedServiceEvent; ref: SpanRef | undefined }> = [];
    let spans: BridgeSpan[] = [];

    beforeAll(
      async () => {
        server = createServer((req, res) => {
          req.resume();
          const path = (req.url ?? '/').split('?')[0];
          if (path === '/a') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE_A);
          else if (path === '/b') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE_B);
          else if (path === '/after-restore' || path === '/in-pageshow')
            res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
          else res.writeHead(404).end();
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

        browser = startChromium(chromium!);
        const { failed } = browser;
        const cdp = await browser.connect();
        const { until, wake } = browserWaits(failed, WAIT_MS);
        const { targets, enabled } = followAsService(cdp, (t, method, p) => {
          if (method === 'Page.backForwardCacheNotUsed') notUsed.push(JSON.stringify(p.notRestoredExplanations));
          if (method === 'Page.frameNavigated') {
            const { frame, type } = p as { frame: { parentId?: string; loaderId: string }; type?: string };
            if (frame.parentId === undefined) navigationTypes.set(frame.loaderId, type ?? '');
          }
          for (const ev of targetEvents(t, method, p)) events.push({ ...ev, ts: nowMicros() });
          wake();
        });
        const targetId = await openTabAsService(cdp, failed, until, enabled);
        const [tab] = [...targets.entries()].find(([, t]) => t.targetId === targetId)!;
        const shown = (text: string): number =>
          events.filter((e) => e.type === 'console_log' && String(e.data.text) === text).length;
        const logged = (text: string): boolean => shown(text) > 0;
        await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/a` }, tab)]);
        await until('page A shown', () => logged('a shown') && events.some((e) => e.type === 'page_load'));
        await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/b` }, tab)]);
        await until('page B shown', () => shown('b shown') >= 1);
        // Back, as a user would: history.back() in B. Chromium may decline to cache a page (it says
        // why in Page.backForwardCacheNotUsed; a renderer too slow to freeze it in time is one
        // reason on a loaded machine) and load it again instead: then forward and back once more.
        // What tells a restore from a load is the navigation's type: the console lines are no
        // help (Chromium sends the restored page's earlier console lines again).
        const visitsOfA = (): TimedServiceEvent[] =>
          events.filter((e) => e.type === 'page_navigation' && e.data.url === `${base}/a`);
        for (let tries = 1; ; tries++) {
          const before = visitsOfA().length;
          await Promise.race([failed, cdp.send('Runtime.evaluate', { expression: 'history.back()' }, tab)]);
          await until('page A restored, or loaded again', () => visitsOfA().length > before);
          const back = visitsOfA().at(-1)!;
          if (navigationTypes.get(String(back.data.loader_id)) === 'BackForwardCacheRestore') break;
          if (tries === 3) throw new Error(`Chromium did not restore page A from its cache: ${notUsed.join('; ')}`);
          await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/b` }, tab)]);
          await until('page B shown again', () => shown('b shown') >= tries + 1);
        }
        await until(
          "the restored page's fetch answered",
          () =>
            logged('a restored') &&
            events.some((e) => e.type === 'network_response' && String(e.data.url).includes('/after-restore')),
        );

        ({ refs, spans } = sessionSpans(SESSION, events));
      },
      WAIT_MS * 3 + 15_000,
    );

    afterAll(async () => {
      await browser?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    const navigations = (): TimedServiceEvent[] =>
      events.filter((e) => e.type === 'page_navigation' && String(e.data.url).startsWith(base));
    /** The restore's navigation (the last), and the first visit's: the navigation of its loader before it. */
    const restoreAndFirst = (): [TimedServiceEvent, TimedServiceEvent] => {
      const all = navigations();
      const restore = all.at(-1)!;
      return [restore, all.find((e) => e.data.loader_id === restore.data.loader_id)!];
    };
    const pageSpans = (loader: unknown): BridgeSpan[] =>
      spans
        .filter((s) => s.kind === 1 && s.attributes['browser.navigation.loader_id'] === loader)
        .sort((x, y) => x.startMicros - y.startMicros);

    it('the browser restored A from its cache, with the loader of its first visit', () => {
      const [restore, first] = restoreAndFirst();
      expect(String(restore.data.url)).toBe(`${base}/a`);
      expect(navigationTypes.get(String(restore.data.loader_id))).toBe('BackForwardCacheRestore');
      expect(first).not.toBe(restore);
      // B came between them: the page was left, then committed again.
      expect(navigations().at(-2)?.data.url).toBe(`${base}/b`);
    });

    it('makes the restore a navigation span of its own, linked to the first visit', () => {
      const [restore] = restoreAndFirst();
      const visits = pageSpans(restore.data.loader_id);
      expect(visits).toHaveLength(2);
      const [first, restored] = visits as [BridgeSpan, BridgeSpan];
      expect(restored.spanId).not.toBe(first.spanId);
      expect(restored.traceId).not.toBe(first.traceId);
      expect(first.attributes['browser.span.end_reason']).toBe('navigated_away');
      expect(first.attributes['browser.navigation.restored_visit']).toBeUndefined();
      expect(restored.attributes['browser.navigation.restored_visit']).toBe(1);
      expect(restored.attributes['browser.span.incomplete']).toBeUndefined();
      expect(restored.links.map((l) => l.spanId)).toEqual([first.spanId]);
      const [b] = pageSpans(navigations().at(-2)!.data.loader_id);
      expect(b?.name).toBe(`${base}/b`);
      expect(b?.attributes['browser.span.end_reason']).toBe('navigated_away');
      expect(b!.endMicros).toBeLessThanOrEqual(restored.startMicros);
    });

    it('puts what the restored page does after its navigation under the restored visit', () => {
      const [restoreNav] = restoreAndFirst();
      const [first, restored] = pageSpans(restoreNav.data.loader_id) as [BridgeSpan, BridgeSpan];
      const restore = events.indexOf(restoreNav);
      const requestAt = (path: string): number =>
        events.findIndex((e) => e.type === 'network_request' && String(e.data.url).includes(path));
      const spanOf = (path: string): BridgeSpan => {
        const found = spans.filter((s) => s.kind === 3 && String(s.attributes['url.full']).includes(path));
        expect(found, path).toHaveLength(1);
        return found[0]!;
      };
      // Half a second after the restore: after its navigation in the stream, in the restored visit.
      expect(requestAt('/after-restore?')).toBeGreaterThan(restore);
      expect(spanOf('/after-restore?')).toMatchObject({ traceId: restored.traceId, parentSpanId: restored.spanId });
      expect(spanOf('/after-restore?').attributes['http.response.status_code']).toBe(200);
      const line = refs.find(({ event }) => event.type === 'console_log' && event.data.text === 'a restored');
      expect(line?.ref).toEqual({ traceId: restored.traceId, spanId: restored.spanId });
      // In the pageshow handler: in whichever visit the stream had committed when it came.
      const inShow = requestAt('/in-pageshow?');
      expect(inShow).toBeGreaterThan(-1);
      const visit = inShow > restore ? restored : first;
      expect(spanOf('/in-pageshow?')).toMatchObject({ traceId: visit.traceId, parentSpanId: visit.spanId });
    });

    it('points every record at a span that exists, gives no two spans one id, and carries no secret', () => {
      const traceOf = new Map(spans.map((s) => [s.spanId, s.traceId]));
      for (const { event, ref } of refs)
        if (ref !== undefined) expect(traceOf.get(ref.spanId), event.type).toBe(ref.traceId);
      expect(traceOf.size).toBe(spans.length);
      expect(JSON.stringify(spans)).not.toMatch(/SECRET-/);
    });
  },
);
