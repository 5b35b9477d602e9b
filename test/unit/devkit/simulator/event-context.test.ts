// The simulator stamps the event context as the service's browser monitor does (BrowserEventContext
// in the Node SDK's telemetry.ts): page, target, CDP session and navigation epoch on every
// CDP-sourced event; page_navigation without nav_seq (it starts the epoch) and page_tab_opened
// without a session. And proxy_error carries the service's codes, `unknown` with raw_code.
import { describe, expect, it } from 'vitest';
import { EventFactory } from '../../../../src/devkit/simulator/events/event-factory.js';
import { PROXY_CODES } from '../../../../src/devkit/simulator/events/unlisted.js';
import { createRng } from '../../../../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL } from '../../../../src/devkit/simulator/pools.js';
import type { TelemetryEvent } from '../../../../src/upstream/envelope.js';

const dataOf = (e: TelemetryEvent): Record<string, unknown> => e.data ?? {};

// The codes of the service's BrowserProxyErrorEventData (kernel-images server/openapi.yaml).
const SERVICE_PROXY_CODES = [
  'destination_blocked',
  'provider_blacklisted',
  'provider_unreachable',
  'provider_rejected',
  'origin_tls_timeout',
  'proxy_unavailable',
  'restricted_route_unavailable',
  'upstream_timeout',
  'upstream_dns_failure',
  'upstream_connect_failed',
];

const events = ((): TelemetryEvent[] => {
  const f = new EventFactory(createRng(7), 'sess', CAPTURE_ALL);
  return Array.from({ length: 4000 }, () => f.next() as TelemetryEvent);
})();

/** Events that carry the page context (frame_id and loader_id), whatever their type. */
const isContext = (e: TelemetryEvent): boolean =>
  e.source.kind === 'cdp' && e.type !== 'page_navigation' && typeof dataOf(e).loader_id === 'string';

describe('event context', () => {
  it('every context event carries nav_seq, session_id, target_id and target_type', () => {
    const withContext = events.filter(isContext);
    expect(new Set(withContext.map((e) => e.category))).toEqual(new Set(['console', 'network', 'page', 'interaction']));
    for (const e of withContext) {
      const d = dataOf(e);
      expect(Number.isSafeInteger(d.nav_seq) && (d.nav_seq as number) >= 1, e.type).toBe(true);
      expect(typeof d.session_id, e.type).toBe('string');
      expect(typeof d.target_id, e.type).toBe('string');
      expect(d.target_type, e.type).toBe('page');
    }
  });

  it('a top-level navigation starts the next epoch of its target; a subframe navigation does not', () => {
    let checked = 0;
    for (const [i, e] of events.entries()) {
      if (e.type !== 'page_navigation') continue;
      const nav = dataOf(e);
      expect(nav.nav_seq).toBeUndefined();
      const before = events.slice(0, i).reverse().find(isContext);
      const after = events.slice(i + 1).find(isContext);
      if (before === undefined || after === undefined || after.type === 'page_tab_opened') continue;
      // Another navigation between the two context events: each step is checked where it is alone.
      const between = events.slice(events.indexOf(before) + 1, events.indexOf(after));
      if (between.filter((x) => x.type === 'page_navigation').length > 1) continue;
      // A tab opened in between: the context moved to another target.
      if (dataOf(before).target_id !== nav.target_id || dataOf(after).target_id !== nav.target_id) continue;
      const step = nav.parent_frame_id === undefined ? 1 : 0;
      expect(dataOf(after).nav_seq).toBe((dataOf(before).nav_seq as number) + step);
      if (step === 1) expect(dataOf(after).loader_id).toBe(nav.loader_id);
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('page_tab_opened has no session context; the new tab starts at nav_seq 1', () => {
    let checked = 0;
    for (const [i, e] of events.entries()) {
      if (e.type !== 'page_tab_opened') continue;
      const d = dataOf(e);
      for (const m of ['session_id', 'frame_id', 'loader_id', 'nav_seq']) expect(d[m], m).toBeUndefined();
      const after = events.slice(i + 1).find(isContext);
      if (after === undefined || dataOf(after).target_id !== d.target_id) continue;
      if (events.slice(i + 1, events.indexOf(after)).some((x) => x.type === 'page_navigation')) continue;
      expect(dataOf(after).nav_seq).toBe(1);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('URLs', () => {
  /** Every string in a URL field of an event: its own, its call frames', its LCP element's. */
  const urlsOf = (e: TelemetryEvent): string[] => {
    const d = dataOf(e);
    const found = ['url', 'document_url', 'redirect_url', 'source_url'].map((k) => d[k]);
    for (let st = d.stack_trace as { callFrames: Array<{ url: string }>; parent?: unknown } | undefined; st;) {
      found.push(...st.callFrames.map((c) => c.url));
      st = st.parent as typeof st;
    }
    found.push((d.lcp_details as { url?: string } | undefined)?.url);
    return found.filter((u): u is string => typeof u === 'string');
  };

  // A frame's url, a request's url and documentURL, a call frame's url: CDP reports them ASCII
  // (punycode, percent-encoding) and without the fragment, which it gives apart (urlFragment); a
  // tab opened on a URL (page_tab_opened) keeps it, percent-encoded.
  // test/integration/devkit/simulator/chromium-urls.test.ts checks both against Chromium.
  it('are ASCII and carry no fragment, as CDP reports them; a tab opened keeps the fragment', () => {
    // Code run by eval() has no URL: its call frames and its exception's source_url are "".
    const urls = events
      .filter((e) => e.type !== 'page_tab_opened')
      .flatMap(urlsOf)
      .filter((u) => u !== '');
    expect(urls.length).toBeGreaterThan(1000);
    for (const u of urls) {
      expect(u, u).toMatch(/^[\x21-\x7e]+$/);
      expect(u, u).not.toContain('#');
    }
    expect(urls.some((u) => u.startsWith('https://xn--r8jz45g.jp/%E6%A4%9C%E7%B4%A2'))).toBe(true);
    const tabs = events.filter((e) => e.type === 'page_tab_opened').map((e) => dataOf(e).url as string);
    for (const u of tabs) expect(u, u).toMatch(/^[\x21-\x7e]+$/);
    expect(tabs).toContain('https://app.example.io/dashboard#/reports');
  });
});

describe('proxy_error codes', () => {
  const f = new EventFactory(createRng(11), 'sess', CAPTURE_ALL);
  const errors = Array.from({ length: 1500 }, () => dataOf(f.next(['proxy_error']) as TelemetryEvent));

  it("are the service's codes, every one of them", () => {
    expect([...PROXY_CODES].sort()).toEqual([...SERVICE_PROXY_CODES].sort());
    expect(new Set(errors.map((d) => d.code))).toEqual(new Set([...SERVICE_PROXY_CODES, 'unknown']));
  });

  it('carry raw_code only with unknown, in the sanitized form the service sends', () => {
    for (const d of errors) {
      if (d.code === 'unknown') expect(d.raw_code).toMatch(/^[a-z0-9_]{1,64}$/);
      else expect(d.raw_code).toBeUndefined();
      expect(d.status).toBe(502);
    }
  });
});
