// One page's telemetry from a real Chromium, for the mapping tests that check what the mapper makes
// of it: the page is served from a local HTTP server, loaded in a fresh Chromium through CDP, and
// its events are collected as the service converts them (service-events.ts) until the page prints
// `done` on its console. A request's `postData` travels as the service's `post_data`. A test file
// loads its page once for its describe block (pageEventsForSuite) and asserts on the events and on
// what mapServiceEvents makes of them.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { defaultMappingOptions, type MappingOptions } from '../../../src/config/mapping-section.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { openBlankPage, startChromium } from './chromium.js';
import { serviceEvent, type ServiceEvent } from './service-events.js';

/** How long a page may take to print `done`. */
export const PAGE_WAIT_MS = 25_000;

export interface CapturedPage {
  events: ServiceEvent[];
  /** Stops the browser and the server. */
  close(): Promise<void>;
}

/**
 * Loads `page` (HTML, served at `/` with `headers` besides its content type) in `chromium` and
 * collects its events until its console prints `done`; rejects after PAGE_WAIT_MS without it.
 */
export async function capturePageEvents(
  chromium: string,
  page: string,
  headers: Record<string, string> = {},
): Promise<CapturedPage> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/html', ...headers }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = startChromium(chromium);
  const close = async (): Promise<void> => {
    await browser.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const events: ServiceEvent[] = [];
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { failed } = browser;
    const cdp = await browser.connect();
    const { sessionId } = await openBlankPage(browser, cdp);
    const done = new Promise<void>((resolve, reject) => {
      const bound = setTimeout(
        () => reject(new Error(`no last console line after ${PAGE_WAIT_MS / 1000} s`)),
        PAGE_WAIT_MS,
      );
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
  } catch (err) {
    await close();
    throw err;
  }
  return { events, close };
}

/**
 * Registers the hooks that load `page` in `chromium` once before the enclosing describe block's tests
 * (capturePageEvents) and stop the browser and the server after them; call it inside the block. The
 * array it returns is empty until the hook ran: a block skipped where no Chromium is installed
 * registers the hooks but never runs them.
 */
export function pageEventsForSuite(
  chromium: string | undefined,
  page: string,
  headers: Record<string, string> = {},
): readonly ServiceEvent[] {
  const events: ServiceEvent[] = [];
  let captured: CapturedPage | undefined;
  beforeAll(async () => {
    if (chromium === undefined) throw new Error('no Chromium to load the page in');
    captured = await capturePageEvents(chromium, page, headers);
    events.push(...captured.events);
  }, PAGE_WAIT_MS + 15_000);
  afterAll(async () => captured?.close());
  return events;
}

/** The captured events as one session's log records, mapped with `options` (the defaults). */
export function mapServiceEvents(
  events: readonly ServiceEvent[],
  sessionId: string,
  options: MappingOptions = defaultMappingOptions,
): BridgeLogRecord[] {
  const mapper = createMapper(options);
  const ctx = { sessionId, attributes: {}, epoch: 0 };
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
