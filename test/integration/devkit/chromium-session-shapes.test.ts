// What an agent's session meets beyond ordinary web pages, against a real Chromium: data:
// documents it opens (percent-encoded and base64), workers started from blob: URLs (dedicated and
// shared), a service worker, console calls with unusual arguments, and uncaught exceptions from an
// inline script, from eval'd code and from promises nobody handled. Headless Chromium, attached to
// every target as the service attaches (browser-wide auto-attach, and each page's for its dedicated
// workers), loads a page from a loopback server that does all of it, then four data: documents
// (two of them the simulator's).
// What CDP reports is compared with what the simulator sends, and mapped as the service would send
// it (service-events.ts) through the bridge's mapper: what docs/mapping.md promises must hold.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
// Re-run with `npx vitest run test/integration/devkit/chromium-session-shapes.test.ts`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { EXCEPTION_TEXTS, VALUELESS_ARGS } from '../../../src/devkit/simulator/events/console.js';
import { EventFactory } from '../../../src/devkit/simulator/events/event-factory.js';
import { createRng } from '../../../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL } from '../../../src/devkit/simulator/pools.js';
import { DATA_DOCUMENTS } from '../../../src/devkit/simulator/events/context.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import type { Envelope } from '../../../src/upstream/envelope.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import { chromiumUnderTest, findChromium, openBlankPage, startChromium, type ChromiumHandle } from './chromium.js';
import { consoleArg, serviceEvent, type RemoteObject } from './service-events.js';

const chromium = findChromium();
const against = chromiumUnderTest(chromium);

/** Longer than the service's 8,192-byte cut and than nothing else here: only the size limit bounds it. */
const LONG = 'x'.repeat(20_000);

// The page: console calls, two blob: workers and a service worker, then three uncaught exceptions.
const SHAPES_HTML = `<!doctype html><meta charset="utf-8"><body><script>
const origin = location.origin;
console.log('${LONG}');
console.log({ a: 1, nested: { b: [1, 2] } });
console.log(Symbol('tag'));
const circular = { name: 'c' }; circular.self = circular; console.log(circular);
console.log('%cstyled %s and %d', 'color: red', 'str', 42);
console.table([{ a: 1 }, { a: 2 }]);
const blob = (code) => URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
new Worker(blob("console.log('dedicated says', { a: 1 }); fetch('" + origin + "/from-dedicated')" +
  ".then(() => { throw new TypeError('dedicated boom'); });"));
new SharedWorker(blob("onconnect = () => { console.log('shared says'); fetch('" + origin + "/from-shared');" +
  " setTimeout(() => { throw new TypeError('shared boom'); }, 0); };")).port.start();
navigator.serviceWorker.register('/sw.js');
setTimeout(() => eval('throw new RangeError("from eval")'), 0);
setTimeout(() => Promise.reject(new Error('rejected')), 0);
throw new TypeError('inline throw');
</script></body>`;

const SW_JS = `self.addEventListener('install', () => { console.log('sw install'); fetch('/from-sw?token=abc'); });`;

interface Seen {
  method: string;
  params: Record<string, unknown>;
  /** The type of the target the event came from: page, worker, shared_worker, service_worker. */
  targetType: string;
  /** The page's URL (its last top-level navigation) for a page's events, else undefined. */
  pageUrl?: string;
}

const WAIT_MS = 25_000;

describe.skipIf(chromium === undefined)(`an agent's session shapes against ${against}`, () => {
  let server: Server;
  let browser: ChromiumHandle | undefined;
  const seen: Seen[] = [];
  let [base, dataPage, base64Page] = ['', '', ''];

  beforeAll(
    async () => {
      server = createServer((req, res) => {
        if (req.url === '/sw.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(SW_JS);
        else if (req.url === '/shapes') res.writeHead(200, { 'content-type': 'text/html' }).end(SHAPES_HTML);
        else res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // Its dedicated worker comes from a blob: URL of an opaque origin: blob:null/<uuid>.
      dataPage =
        `data:text/html,<title>agent</title><script>console.log('in data doc'); fetch('${base}/from-data?token=abc'); ` +
        `new Worker(URL.createObjectURL(new Blob(["console.log('null worker says'); fetch('${base}/from-null-worker?token=abc')` +
        `.then(() => { throw new TypeError('null worker boom'); });"], { type: 'text/javascript' }))); ` +
        `throw new Error('data throw')</script>`;
      // Past the 64 KiB record limit on its own: only the size limit keeps a record of it in bounds.
      base64Page =
        'data:text/html;base64,' +
        Buffer.from(
          `<script>console.log('b64 doc'); fetch('${base}/from-b64')</script><p>${'y'.repeat(90_000)}</p>`,
        ).toString('base64');

      browser = startChromium(chromium!);
      const { failed } = browser;
      const cdp = await browser.connect();
      const targets = new Map<string, string>();
      const pageUrls = new Map<string, string>();
      let waiter: { missing: () => string[]; resolve: () => void } | undefined;
      cdp.on(({ method, params, sessionId }) => {
        if (method === 'Target.attachedToTarget') {
          const { sessionId: child, targetInfo } = params as { sessionId: string; targetInfo: { type: string } };
          targets.set(child, targetInfo.type);
          const domains = targetInfo.type === 'page' ? ['Runtime', 'Network', 'Page'] : ['Runtime', 'Network'];
          // A page's own auto-attach is what shows its dedicated workers; each target waits for the
          // debugger until its domains are on, so nothing it does first is missed.
          // Sent at once, not one after the other's answer: a target handles its commands in order, and
          // one that answers late (a service worker's) must not keep the target waiting meanwhile.
          const commands = domains.map((d) => cdp.send(`${d}.enable`, {}, child));
          if (targetInfo.type === 'page')
            commands.push(
              cdp.send(
                'Target.setAutoAttach',
                { autoAttach: true, waitForDebuggerOnStart: true, flatten: true },
                child,
              ),
            );
          commands.push(cdp.send('Runtime.runIfWaitingForDebugger', {}, child));
          // A target that went away meanwhile refuses them: nothing to wait for then.
          for (const c of commands) c.catch(() => undefined);
          return;
        }
        if (sessionId === undefined) return;
        const targetType = targets.get(sessionId) ?? 'unknown';
        if (method === 'Page.frameNavigated' && (params.frame as { parentId?: string }).parentId === undefined)
          pageUrls.set(sessionId, (params.frame as { url: string }).url);
        seen.push({ method, params, targetType, pageUrl: pageUrls.get(sessionId) });
        if (waiter?.missing().length === 0) waiter.resolve();
      });
      await Promise.race([
        failed,
        cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
      ]);
      const { sessionId } = await openBlankPage(browser, cdp);
      /** Navigates the tab and waits until nothing is `missing` of what was seen (bounded, naming what is). */
      const visit = async (url: string, what: string, expected: Record<string, () => boolean>): Promise<void> => {
        const missing = (): string[] => Object.keys(expected).filter((k) => !expected[k]!());
        const reached = new Promise<void>((resolve, reject) => {
          const bound = setTimeout(
            () => reject(new Error(`${what}: after ${WAIT_MS / 1000} s, no ${missing().join(', ')}`)),
            WAIT_MS,
          );
          waiter = {
            missing,
            resolve: () => {
              clearTimeout(bound);
              resolve();
            },
          };
        });
        await Promise.race([failed, cdp.send('Page.navigate', { url }, sessionId)]);
        await Promise.race([failed, reached]);
      };
      const has = (pred: (s: Seen) => boolean): boolean => seen.some(pred);
      const logged = (type: string, text: string) => (s: Seen) =>
        s.method === 'Runtime.consoleAPICalled' &&
        s.targetType === type &&
        (s.params.args as RemoteObject[])[0]?.value === text;
      const exceptions = (type: string) =>
        seen.filter((s) => s.method === 'Runtime.exceptionThrown' && s.targetType === type);
      const requested = (path: string) => (s: Seen) =>
        s.method === 'Network.requestWillBeSent' && (s.params.request as { url: string }).url.startsWith(base + path);
      const navigatedTo = (prefix: string) => (s: Seen) =>
        s.method === 'Page.frameNavigated' && (s.params.frame as { url: string }).url.startsWith(prefix);
      await visit(`${base}/shapes`, 'the page, its workers and its service worker', {
        'console.table': () => has((s) => s.method === 'Runtime.consoleAPICalled' && s.params.type === 'table'),
        'three page exceptions': () => exceptions('page').length >= 3,
        'dedicated worker console': () => has(logged('worker', 'dedicated says')),
        'dedicated worker exception': () => exceptions('worker').length >= 1,
        'shared worker console': () => has(logged('shared_worker', 'shared says')),
        'shared worker exception': () => exceptions('shared_worker').length >= 1,
        'service worker console': () => has(logged('service_worker', 'sw install')),
        '/from-dedicated': () => has(requested('/from-dedicated')),
        '/from-shared': () => has(requested('/from-shared')),
        '/from-sw': () => has(requested('/from-sw')),
      });
      await visit(dataPage, 'the data: document', {
        navigation: () => has(navigatedTo('data:text/html,')),
        console: () => has(logged('page', 'in data doc')),
        request: () => has(requested('/from-data')),
        exception: () => exceptions('page').length >= 4,
        'its blob: worker console': () => has(logged('worker', 'null worker says')),
        'its blob: worker exception': () =>
          exceptions('worker').some((s) => JSON.stringify(s.params).includes('blob:null/')),
        '/from-null-worker': () => has(requested('/from-null-worker')),
      });
      await visit(base64Page, 'the base64 data: document', {
        navigation: () => has(navigatedTo('data:text/html;base64,')),
        console: () => has(logged('page', 'b64 doc')),
        request: () => has(requested('/from-b64')),
      });
      // The simulator's own data: documents.
      for (const [i, text] of ['report', 'export'].entries())
        await visit(DATA_DOCUMENTS[i]!, `the simulator's data: document ${i}`, {
          console: () => has(logged('page', text)),
        });
    },
    5 * WAIT_MS + 15_000,
  );

  afterAll(async () => {
    await browser?.stop();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  const mapper = createMapper(defaultMappingOptions);
  let seq = 0;
  /** The bridge's record of the service's event for what Chromium reported. */
  const record = (s: Seen): BridgeLogRecord => {
    const e = serviceEvent(s.method, s.params)!;
    // The service stamps a page's events with its URL (the event context); a worker has none.
    const data =
      s.pageUrl !== undefined && e.type !== 'page_navigation' && e.type !== 'network_request'
        ? { url: s.pageUrl, ...e.data }
        : e.data;
    const envelope: Envelope = {
      seq: ++seq,
      event: { ts: 1, type: e.type, category: e.category, source: { kind: 'cdp' }, data },
    };
    return mapper.map(envelope, { sessionId: 'shapes', attributes: {}, epoch: 0 }, 1)!;
  };
  const encode = createRecordEncoder();
  const find = (pred: (s: Seen) => boolean, what: string): Seen => seen.find(pred) ?? expect.fail(`not seen: ${what}`);
  const navigation = (prefix: string) =>
    find(
      (s) => s.method === 'Page.frameNavigated' && (s.params.frame as { url: string }).url.startsWith(prefix),
      `a navigation to ${prefix.slice(0, 30)}`,
    );
  const request = (path: string) =>
    find(
      (s) =>
        s.method === 'Network.requestWillBeSent' && (s.params.request as { url: string }).url.startsWith(base + path),
      `a request for ${path}`,
    );
  const consoleCall = (text: string) =>
    find(
      (s) => s.method === 'Runtime.consoleAPICalled' && (s.params.args as RemoteObject[])[0]?.value === text,
      `console ${text.slice(0, 20)}`,
    );

  it('a data: document: the whole URL is the frame, the document and the context; its scripts have no URL', () => {
    expect((navigation('data:text/html;base64,').params.frame as { url: string }).url).toBe(base64Page);
    const fromData = request('/from-data');
    expect(fromData.params.documentURL).toBe((navigation('data:text/html,').params.frame as { url: string }).url);
    const frames = (consoleCall('in data doc').params.stackTrace as { callFrames: Array<{ url: string }> }).callFrames;
    expect(frames.map((f) => f.url)).toEqual(['']);
    const thrown = seen.find(
      (s) => s.method === 'Runtime.exceptionThrown' && s.pageUrl?.startsWith('data:text/html,') === true,
    );
    expect((thrown?.params.exceptionDetails as { url?: string }).url).toBeUndefined();
  });

  it("the simulator's data: documents are reported as it sends them, and so are their scripts' frames", () => {
    for (const [i, text] of ['report', 'export'].entries()) {
      const said = consoleCall(text);
      expect(said.pageUrl).toBe(DATA_DOCUMENTS[i]);
      expect((said.params.stackTrace as { callFrames: Array<{ url: string }> }).callFrames[0]!.url).toBe('');
    }
    const f = new EventFactory(createRng(9), 'shapes', CAPTURE_ALL, 'catalogue');
    const onData = Array.from({ length: 60_000 }, () => f.next()!.data).filter(
      (d) => typeof d?.url === 'string' && d.url.startsWith('data:text/html') && d.stack_trace !== undefined,
    );
    expect(onData.length).toBeGreaterThan(0);
    for (const d of onData)
      for (const frame of (d!.stack_trace as { callFrames: Array<{ url: string }> }).callFrames)
        expect(frame.url).toBe('');
  });

  it('mapped, a data: document promotes its scheme only, and no record or attribute carries its payload unbounded', () => {
    const max = defaultMappingOptions.maxRecordBytes;
    for (const s of [navigation('data:text/html;base64,'), consoleCall('b64 doc'), request('/from-b64')]) {
      const r = record(s);
      expect(r.attributes).not.toHaveProperty('server.address', expect.stringContaining('base64'));
      for (const [k, v] of Object.entries(r.attributes))
        if (typeof v === 'string') expect(v.length, k).toBeLessThan(1024);
      expect(encode(r).length).toBeLessThanOrEqual(max);
    }
    const nav = record(navigation('data:text/html;base64,')).attributes;
    expect(nav['url.scheme']).toBe('data');
    expect(nav).not.toHaveProperty('url.full');
    expect(nav).not.toHaveProperty('server.address');
    expect(nav['browser.record.truncated']).toBe(true);
    // A script of a data: document: the context is the data: URL, the frame has no URL.
    const logged = record(consoleCall('in data doc')).attributes;
    expect(logged['url.scheme']).toBe('data');
    expect(logged).not.toHaveProperty('code.file.path');
    // Its request goes to a server, named as such, with its secret masked.
    const fetched = record(request('/from-data')).attributes;
    expect(fetched['url.full']).toBe(`${base}/from-data?token=REDACTED`);
    expect(fetched['server.address']).toBe('127.0.0.1');
  });

  it("an uncaught exception's text is Chromium's bare label, as the simulator writes it, and the whole exception.message", () => {
    const thrown = seen.filter((s) => s.method === 'Runtime.exceptionThrown');
    const texts = new Set(thrown.map((s) => (s.params.exceptionDetails as { text: string }).text));
    expect([...texts].sort()).toEqual(['Uncaught', 'Uncaught (in promise)']);
    for (const text of texts) expect(EXCEPTION_TEXTS).toContain(text);
    for (const s of thrown) {
      const attrs = record(s).attributes;
      expect(attrs['exception.message']).toBe((s.params.exceptionDetails as { text: string }).text);
      expect(attrs).not.toHaveProperty('exception.type');
    }
  });

  it("eval'd code has no URL: its frame and its exception have none, as the simulator draws them, and no code.file.path is made of it", () => {
    const fromEval = find((s) => {
      const frames = (
        s.params.exceptionDetails as { stackTrace?: { callFrames: Array<{ functionName: string }> } } | undefined
      )?.stackTrace?.callFrames;
      return s.method === 'Runtime.exceptionThrown' && frames?.[0]?.functionName === 'eval';
    }, "an exception from eval'd code");
    const details = fromEval.params.exceptionDetails as {
      url?: string;
      stackTrace: { callFrames: Array<{ url: string }> };
    };
    expect(details.url).toBeUndefined();
    expect(details.stackTrace.callFrames[0]!.url).toBe('');
    const attrs = record(fromEval).attributes;
    expect(attrs).not.toHaveProperty('code.file.path');
    expect(attrs['code.function.name']).toBe('eval');
    expect(attrs['exception.stacktrace']).toContain('at eval (<anonymous>:');
    const f = new EventFactory(createRng(3), 'shapes', CAPTURE_ALL);
    const simulated = Array.from({ length: 3000 }, () => f.next(['console_error'])!.data as Record<string, unknown>);
    const evals = simulated.filter((d) => d.source_url === '');
    expect(evals.length).toBeGreaterThan(0);
    for (const d of evals)
      expect((d.stack_trace as { callFrames: Array<{ url: string }> }).callFrames[0]).toMatchObject({
        url: '',
        functionName: 'eval',
      });
  });

  it('console arguments without a value are their type; format strings stay as the page wrote them', () => {
    const args = (text: unknown) =>
      (
        find(
          (s) =>
            s.method === 'Runtime.consoleAPICalled' &&
            s.targetType === 'page' &&
            consoleArg((s.params.args as RemoteObject[])[0]!) === text,
          `console ${String(text)}`,
        ).params.args as RemoteObject[]
      ).map(consoleArg);
    expect(args('object')).toEqual(['object']);
    expect(args('symbol')).toEqual(['symbol']);
    expect(args('%cstyled %s and %d')).toEqual(['%cstyled %s and %d', 'color: red', 'str', '42']);
    for (const valueless of ['object', 'symbol']) expect(VALUELESS_ARGS).toContain(valueless);
    const table = find((s) => s.params.type === 'table', 'console.table');
    expect(record(table).attributes).toMatchObject({ 'browser.console.level': 'table' });
    expect(record(table).severityNumber).toBe(9);
    const long = record(consoleCall(LONG));
    expect(encode(long).length).toBeLessThanOrEqual(defaultMappingOptions.maxRecordBytes);
  });

  it('workers started from blob: URLs report their console and exceptions with blob: frames, fetching as scripts', () => {
    for (const type of ['worker', 'shared_worker']) {
      const said = find((s) => s.method === 'Runtime.consoleAPICalled' && s.targetType === type, `${type} console`);
      const frame = (said.params.stackTrace as { callFrames: Array<{ url: string }> }).callFrames[0]!;
      expect(frame.url).toMatch(new RegExp(`^blob:${base.replace(/[.]/g, '\\.')}/[0-9a-f-]{36}$`));
      const attrs = record(said).attributes;
      expect(attrs['code.file.path']).toBe(frame.url);
      expect(attrs).not.toHaveProperty('server.address');
      const thrown = find((s) => s.method === 'Runtime.exceptionThrown' && s.targetType === type, `${type} exception`);
      expect(record(thrown).attributes['code.file.path']).toBe(frame.url);
    }
    // The simulator's workers log as these do: their blob: frames (a service worker its script's),
    // typed as Chromium types the target, and without a page's context, which the service keeps
    // for pages only.
    const reported = new Set(seen.filter((s) => s.method === 'Runtime.consoleAPICalled').map((s) => s.targetType));
    const f = new EventFactory(createRng(5), 'shapes', CAPTURE_ALL);
    const fromWorkers = Array.from({ length: 3000 }, () => f.next(['console_log'])!)
      .map((e) => ({ data: e.data as Record<string, unknown>, metadata: e.source.metadata as Record<string, unknown> }))
      .filter((e) => e.metadata.target_type !== undefined);
    const types = new Set(fromWorkers.map((e) => e.metadata.target_type as string));
    expect([...types].sort()).toEqual(['service_worker', 'shared_worker', 'worker']);
    for (const type of types) expect(reported).toContain(type);
    for (const { data, metadata } of fromWorkers) {
      expect(data).not.toHaveProperty('url');
      const url = (data.stack_trace as { callFrames: Array<{ url: string }> }).callFrames[0]!.url;
      if (metadata.target_type === 'service_worker') expect(url).toMatch(/^https?:\/\/[^/]+\/sw\.js$/);
      else
        expect(url).toMatch(
          /^blob:https?:\/\/[^/]+\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
    }
    const fromShared = request('/from-shared');
    expect(fromShared.targetType).toBe('shared_worker');
    expect((fromShared.params.initiator as { type: string }).type).toBe('script');
    expect(fromShared.params.documentURL).toMatch(/^blob:/);
  });

  it("a data: document's blob: worker is blob:null/<uuid>: mapped, it names no server, and it is its frames' code.file.path", () => {
    const NULL_BLOB = /^blob:null\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    // The page asks for the worker's script: the blob: URL is the request's URL and document.
    const script = find(
      (s) =>
        s.method === 'Network.requestWillBeSent' && (s.params.request as { url: string }).url.startsWith('blob:null/'),
      'the request for the blob:null/ script',
    );
    const url = (script.params.request as { url: string }).url;
    expect(url).toMatch(NULL_BLOB);
    expect(script.params.documentURL).toBe(url);
    expect(record(script).attributes).toMatchObject({ 'url.full': url, 'url.scheme': 'blob' });
    // Opaque origin: "null" is no host, and no other off-web URL names a server either.
    const noServer = (attrs: Record<string, unknown>): void => {
      expect(attrs).not.toHaveProperty('server.address');
      expect(attrs).not.toHaveProperty('server.port');
    };
    noServer(record(script).attributes);
    // The worker's console: its frame is the blob:null/ URL, the record's code.file.path as it is.
    const said = consoleCall('null worker says');
    expect(said.targetType).toBe('worker');
    expect((said.params.stackTrace as { callFrames: Array<{ url: string }> }).callFrames[0]!.url).toBe(url);
    const logged = record(said).attributes;
    expect(logged['code.file.path']).toBe(url);
    noServer(logged);
    // Its uncaught exception: source_url and frames are the blob:null/ URL.
    const thrown = find(
      (s) =>
        s.method === 'Runtime.exceptionThrown' &&
        s.targetType === 'worker' &&
        (s.params.exceptionDetails as { url?: string }).url === url,
      'the blob:null/ worker exception',
    );
    const failed = record(thrown).attributes;
    expect(failed['code.file.path']).toBe(url);
    expect(failed['exception.stacktrace']).toContain(url);
    noServer(failed);
    // Its fetch: the document is the blob:null/ URL; the request names its server, token masked.
    const fromWorker = request('/from-null-worker');
    expect(fromWorker.targetType).toBe('worker');
    expect(fromWorker.params.documentURL).toBe(url);
    expect(record(fromWorker).attributes).toMatchObject({
      'url.full': `${base}/from-null-worker?token=REDACTED`,
      'server.address': '127.0.0.1',
    });
  });

  it("a service worker's requests and console come from its own target, without a frame", () => {
    const fromSw = request('/from-sw');
    expect(fromSw.targetType).toBe('service_worker');
    expect(fromSw.params.frameId).toBeUndefined();
    expect(fromSw.params.documentURL).toBe(`${base}/sw.js`);
    expect(record(fromSw).attributes).toMatchObject({
      'url.full': `${base}/from-sw?token=REDACTED`,
      'server.address': '127.0.0.1',
    });
    const said = consoleCall('sw install');
    expect(said.targetType).toBe('service_worker');
    expect(record(said).attributes['code.file.path']).toBe(`${base}/sw.js`);
  });
});
