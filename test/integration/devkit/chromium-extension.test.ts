// A browser extension's telemetry, against a real Chromium: headless Chromium loads a tiny unpacked
// manifest-v3 extension (--load-extension, written to a temp dir) whose service worker logs, fetches
// from a loopback server and throws, and a tab opens the extension's own page, which logs. What CDP
// reports is mapped as the service would send it (service-events.ts): chrome-extension:// URLs
// name no server (docs/mapping.md "Every record"), the requests they make do. Skipped where no
// Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH). Re-run with
// `npx vitest run test/integration/devkit/chromium-extension.test.ts`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import type { Envelope } from '../../../src/upstream/envelope.js';
import { chromiumUnderTest, findChromium, startChromium, type ChromiumHandle } from './chromium.js';
import { serviceEvent, type RemoteObject } from './service-events.js';

const chromium = findChromium();
const against = chromiumUnderTest(chromium);

const WAIT_MS = 25_000;

interface Seen {
  method: string;
  params: Record<string, unknown>;
  targetType: string;
  targetUrl: string;
}

describe.skipIf(chromium === undefined)(`an extension's telemetry against ${against}`, () => {
  let server: Server;
  let browser: ChromiumHandle | undefined;
  let extensionDir = '';
  let base = '';
  /** `chrome-extension://<id>`, as the extension's service worker target names it. */
  let extensionOrigin = '';
  const seen: Seen[] = [];

  beforeAll(
    async () => {
      server = createServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('ok'),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      extensionDir = mkdtempSync(join(tmpdir(), 'extension-test-'));
      const manifest = {
        manifest_version: 3,
        name: 'telemetry test',
        version: '1',
        background: { service_worker: 'bg.js' },
        host_permissions: [`${base}/*`],
      };
      writeFileSync(join(extensionDir, 'manifest.json'), JSON.stringify(manifest));
      // Started only once the test has attached, so nothing it does is missed.
      writeFileSync(
        join(extensionDir, 'bg.js'),
        `self.addEventListener('message', () => {
  console.log('ext bg');
  fetch('${base}/from-ext?token=abc');
  setTimeout(() => { throw new Error('ext boom'); }, 0);
});`,
      );
      writeFileSync(join(extensionDir, 'page.html'), `<!doctype html><script src="page.js"></script>`);
      writeFileSync(
        join(extensionDir, 'page.js'),
        `console.log('ext page'); navigator.serviceWorker.ready.then((r) => r.active.postMessage('go'));`,
      );

      browser = startChromium(chromium!, [`--load-extension=${extensionDir}`]);
      const { failed } = browser;
      const cdp = await browser.connect();
      const targets = new Map<string, { type: string; url: string }>();
      const expected: Record<string, () => boolean> = {
        'the page navigation': () =>
          seen.some(
            (s) =>
              s.method === 'Page.frameNavigated' &&
              (s.params.frame as { url: string }).url.startsWith('chrome-extension://'),
          ),
        'the page console': () => seen.some((s) => s.targetType === 'page' && logged(s, 'ext page')),
        'the worker console': () => seen.some((s) => s.targetType === 'service_worker' && logged(s, 'ext bg')),
        'the worker request': () => seen.some((s) => requestUrl(s)?.startsWith(`${base}/from-ext`) === true),
        'the worker exception': () =>
          seen.some((s) => s.targetType === 'service_worker' && s.method === 'Runtime.exceptionThrown'),
      };
      const missing = (): string[] => Object.keys(expected).filter((k) => !expected[k]!());
      let resolveDone: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (resolveDone = resolve));
      cdp.on(({ method, params, sessionId }) => {
        if (method === 'Target.attachedToTarget') {
          const { sessionId: child, targetInfo } = params as {
            sessionId: string;
            targetInfo: { type: string; url: string };
          };
          targets.set(child, targetInfo);
          if (targetInfo.type === 'service_worker' && targetInfo.url.startsWith('chrome-extension://'))
            // Not new URL().origin: a scheme that is not special has an opaque origin ("null") there.
            extensionOrigin = /^chrome-extension:\/\/[^/]+/.exec(targetInfo.url)![0];
          const domains = targetInfo.type === 'page' ? ['Runtime', 'Network', 'Page'] : ['Runtime', 'Network'];
          const commands = domains.map((d) => cdp.send(`${d}.enable`, {}, child));
          commands.push(cdp.send('Runtime.runIfWaitingForDebugger', {}, child));
          // A target that went away meanwhile refuses them: nothing to wait for then.
          for (const c of commands) c.catch(() => undefined);
          return;
        }
        const target = sessionId === undefined ? undefined : targets.get(sessionId);
        if (target === undefined) return;
        seen.push({ method, params, targetType: target.type, targetUrl: target.url });
        if (missing().length === 0) resolveDone();
      });
      await Promise.race([
        failed,
        cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
      ]);
      // The extension's worker may have started before the auto-attach: it is then attached now.
      const started = new Promise<void>((resolve, reject) => {
        const bound = setTimeout(() => reject(new Error('no extension service worker target')), WAIT_MS);
        const look = (): void => {
          if (extensionOrigin !== '') {
            clearTimeout(bound);
            resolve();
          } else setTimeout(look, 50);
        };
        look();
      });
      await Promise.race([failed, started]);
      // The tab Chromium started with opens the extension's page, as a user or an agent would.
      const tab = [...targets].find(([, t]) => t.type === 'page')![0];
      // Enabled again, and answered, before the navigation: its frameNavigated is what the test maps.
      await Promise.race([failed, cdp.send('Page.enable', {}, tab)]);
      await Promise.race([failed, cdp.send('Page.navigate', { url: `${extensionOrigin}/page.html` }, tab)]);
      const bound = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`after ${WAIT_MS / 1000} s, no ${missing().join(', ')}`)), WAIT_MS).unref(),
      );
      await Promise.race([failed, done, bound]);
    },
    2 * WAIT_MS + 15_000,
  );

  afterAll(async () => {
    await browser?.stop();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    if (extensionDir !== '') rmSync(extensionDir, { recursive: true, force: true });
  });

  const logged = (s: Seen, text: string): boolean =>
    s.method === 'Runtime.consoleAPICalled' && (s.params.args as RemoteObject[])[0]?.value === text;
  const requestUrl = (s: Seen): string | undefined =>
    s.method === 'Network.requestWillBeSent' ? (s.params.request as { url: string }).url : undefined;
  const mapper = createMapper(defaultMappingOptions);
  const attributes = (s: Seen, url?: string): Record<string, unknown> => {
    const e = serviceEvent(s.method, s.params)!;
    const data = url === undefined ? e.data : { url, ...e.data };
    const envelope: Envelope = {
      seq: 1,
      event: { ts: 1, type: e.type, category: e.category, source: { kind: 'cdp' }, data },
    };
    return mapper.map(envelope, { sessionId: 'extension', attributes: {}, epoch: 0 }, 1)!.attributes;
  };

  it("the extension's page: a chrome-extension:// context and frames, promoted as no server", () => {
    const said = seen.find((s) => s.targetType === 'page' && logged(s, 'ext page'))!;
    const frame = (said.params.stackTrace as { callFrames: Array<{ url: string }> }).callFrames[0]!;
    expect(frame.url).toBe(`${extensionOrigin}/page.js`);
    const navigated = seen.find(
      (s) => s.method === 'Page.frameNavigated' && (s.params.frame as { url: string }).url.startsWith(extensionOrigin),
    )!;
    const pageUrl = (navigated.params.frame as { url: string }).url;
    expect(pageUrl).toBe(`${extensionOrigin}/page.html`);
    const attrs = attributes(said, pageUrl);
    expect(attrs).toMatchObject({ 'url.full': pageUrl, 'url.scheme': 'chrome-extension', 'code.file.path': frame.url });
    expect(attrs).not.toHaveProperty('server.address');
    expect(attributes(navigated)).not.toHaveProperty('server.address');
  });

  it("the extension's service worker: its console and exception have chrome-extension:// frames; its request names the server it reached", () => {
    const said = seen.find((s) => s.targetType === 'service_worker' && logged(s, 'ext bg'))!;
    expect(said.targetUrl).toBe(`${extensionOrigin}/bg.js`);
    expect(attributes(said)['code.file.path']).toBe(`${extensionOrigin}/bg.js`);
    const thrown = seen.find((s) => s.targetType === 'service_worker' && s.method === 'Runtime.exceptionThrown')!;
    expect(attributes(thrown)).toMatchObject({
      'code.file.path': `${extensionOrigin}/bg.js`,
      'exception.message': 'Uncaught',
    });
    const fetched = seen.find((s) => requestUrl(s)?.startsWith(`${base}/from-ext`) === true)!;
    expect(fetched.targetType).toBe('service_worker');
    expect(fetched.params.documentURL).toBe(`${extensionOrigin}/bg.js`);
    expect(attributes(fetched)).toMatchObject({
      'url.full': `${base}/from-ext?token=REDACTED`,
      'server.address': '127.0.0.1',
      'browser.network.resource_type': 'Fetch',
    });
  });
});
