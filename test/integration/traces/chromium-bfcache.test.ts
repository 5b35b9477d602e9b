// The spans of a tab that goes back to a page Chromium kept in its back/forward cache, against a
// real Chromium: page A loads, the tab goes to page B, then back. Chromium restores A from the cache
// with the loader of its first visit (Page.frameNavigated of type BackForwardCacheRestore, which
// the service forwards as an ordinary page_navigation), fires no load event, and the restored page
// fetches twice: at once in its pageshow handler (`persisted`), and half a second later. What CDP
// reports is turned into the service's events (service-targets.ts), mapped with the default options
// and fed to the span builder. docs/traces.md promises: the restore is a navigation span of its own,
// linked to the first visit, with what the restored page does after it under it; the first visit and
// B end as left. Chromium reports the restore's navigation after the pageshow handlers ran, so the
// first fetch comes before it in the stream and stays in the first visit, as a request that outlived
// its page.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeSpan, SpanRef } from '../../../src/vocabulary/span.js';
import { chromiumUnderTest, findChromium, startChromium, type ChromiumHandle } from '../devkit/chromium.js';
import { browserWaits, serviceTarget, targetEvents, type ServiceTarget } from '../devkit/service-targets.js';
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
    /** The type of each top-level Page.frameNavigated of the tab, in order. */
    const navigationTypes: string[] = [];
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
        const targets = new Map<string, ServiceTarget>();
        const ready = new Map<string, Promise<unknown>>();
        const { until, wake } = browserWaits(failed, WAIT_MS);
        cdp.on(({ method, params: p, sessionId }) => {
          if (method === 'Target.attachedToTarget') {
            const { sessionId: child, targetInfo } = p as {
              sessionId: string;
              targetInfo: { targetId: string; type: string };
            };
            targets.set(child, serviceTarget(targetInfo.targetId, targetInfo.type));
            const domains = targetInfo.type === 'page' ? ['Runtime', 'Network', 'Page'] : ['Runtime', 'Network'];
            const commands = domains.map((d) => cdp.send(`${d}.enable`, {}, child));
            commands.push(cdp.send('Runtime.runIfWaitingForDebugger', {}, child));
            const all = Promise.all(commands);
            all.catch(() => undefined);
            ready.set(targetInfo.targetId, all);
            return;
          }
          const t = sessionId === undefined ? undefined : targets.get(sessionId);
          if (t === undefined) return;
          if (method === 'Page.frameNavigated' && t.type === 'page') {
            const { frame, type } = p as { frame: { parentId?: string }; type?: string };
            if (frame.parentId === undefined) navigationTypes.push(type ?? '');
          }
          for (const ev of targetEvents(t, method, p)) events.push({ ...ev, ts: nowMicros() });
          wake();
        });

        await Promise.race([
          failed,
          cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
        ]);
        const { targetId } = (await Promise.race([
          failed,
          cdp.send('Target.createTarget', { url: 'about:blank' }),
        ])) as {
          targetId: string;
        };
        await until('attach to the tab', () => ready.has(targetId));
        await Promise.race([failed, ready.get(targetId)]);
        const [tab] = [...targets.entries()].find(([, t]) => t.targetId === targetId)!;
        const logged = (text: string): boolean =>
          events.some((e) => e.type === 'console_log' && String(e.data.text) === text);
        await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/a` }, tab)]);
        await until('page A shown', () => logged('a shown') && events.some((e) => e.type === 'page_load'));
        await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/b` }, tab)]);
        await until('page B shown', () => logged('b shown'));
        // Back, as a user would: history.back() in B.
        await Promise.race([failed, cdp.send('Runtime.evaluate', { expression: 'history.back()' }, tab)]);
        await until('page A restored, or loaded again', () => logged('a restored') || navigationTypes.length >= 4);
        await until("the restored page's fetch answered", () =>
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
    const pagesNamed = (path: string): BridgeSpan[] => spans.filter((s) => s.kind === 1 && s.name === `${base}${path}`);

    it('the browser restored A from its cache, with the loader of its first visit', () => {
      expect(navigationTypes.slice(-3)).toEqual(['Navigation', 'Navigation', 'BackForwardCacheRestore']);
      const [a, b, back] = navigations().slice(-3) as [TimedServiceEvent, TimedServiceEvent, TimedServiceEvent];
      expect(String(a.data.url)).toBe(`${base}/a`);
      expect(String(b.data.url)).toBe(`${base}/b`);
      expect(back.data.loader_id).toBe(a.data.loader_id);
      expect(back.data.loader_id).not.toBe(b.data.loader_id);
    });

    it('makes the restore a navigation span of its own, linked to the first visit', () => {
      const visits = pagesNamed('/a');
      expect(visits).toHaveLength(2);
      const [first, restored] = visits.sort((x, y) => x.startMicros - y.startMicros) as [BridgeSpan, BridgeSpan];
      expect(restored.spanId).not.toBe(first.spanId);
      expect(restored.traceId).not.toBe(first.traceId);
      expect(first.attributes['browser.span.end_reason']).toBe('navigated_away');
      expect(first.attributes['browser.navigation.restored_visit']).toBeUndefined();
      expect(restored.attributes['browser.navigation.restored_visit']).toBe(1);
      expect(restored.attributes['browser.span.incomplete']).toBeUndefined();
      expect(restored.links.map((l) => l.spanId)).toEqual([first.spanId]);
      const [left] = pagesNamed('/b');
      expect(left?.attributes['browser.span.end_reason']).toBe('navigated_away');
      expect(left!.endMicros).toBeLessThanOrEqual(restored.startMicros);
    });

    it('puts what the restored page does after its navigation under the restored visit', () => {
      const [first, restored] = pagesNamed('/a').sort((x, y) => x.startMicros - y.startMicros) as [
        BridgeSpan,
        BridgeSpan,
      ];
      const restore = events.indexOf(navigations().at(-1)!);
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
      const shown = requestAt('/in-pageshow?');
      expect(shown).toBeGreaterThan(-1);
      const visit = shown > restore ? restored : first;
      expect(spanOf('/in-pageshow?')).toMatchObject({ traceId: visit.traceId, parentSpanId: visit.spanId });
    });

    it('points every record at a span that exists, gives no two spans one id, and carries no secret', () => {
      const ids = new Set(spans.map((s) => s.spanId));
      for (const { event, ref } of refs) if (ref !== undefined) expect(ids.has(ref.spanId), event.type).toBe(true);
      expect(ids.size).toBe(spans.length);
      expect(JSON.stringify(spans)).not.toMatch(/SECRET-/);
    });
  },
);
