// Secrets where a real web app puts them, through a real Chromium: a page on a loopback server
// sends them in request headers, query strings, path parameters, redirects, JSON, GraphQL,
// urlencoded and multipart bodies, gets them back in a token answer and a sign-in page (fields named
// by autocomplete or a short word, a select, inline state) and a private key, prints them to the console,
// and is finally navigated to a password-reset link that carries a JWT in its path (and user-info). What CDP
// reports is turned into the events the service sends (service-events.ts), mapped with the default
// options, and fed to the span builder: no secret may reach a log record or a span (name,
// attributes, events), and what only looks like a secret (`tokenizer=`, `X-Token-Count`) stays.
// Skipped where no Chromium is installed (CHROMIUM_PATH, or chromium / chromium-browser on PATH).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { createSpanBuilder } from '../../../src/traces/span-builder.js';
import type { Envelope } from '../../../src/upstream/envelope.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import type { BridgeSpan } from '../../../src/vocabulary/span.js';
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

const b64url = (s: string): string => Buffer.from(s).toString('base64url');
/** The JWT's signature: what must not reach the collector (the page's source holds it in two pieces). */
const SIGNATURE = 'c2lnbmF0dXJlLVNFQ1JFVC1KV1Q';
/** A signed-looking JWT: what an identity provider hands a single-page app. */
const JWT = `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url('{"sub":"alice","exp":1900000000}')}.${SIGNATURE}`;

/** A secret as the page's script spells it: made at run time, so the page's own source holds none. */
const secret = (name: string): string => `(S + '${name}')`;

// Each fetch waits for the one before (its body read, so the load finishes): a stable order.
const PAGE = `<!doctype html><title>app</title><meta name="csrf-token" content="SECRET-META"><body><script>
const S = 'SECRET' + '-';
const JWT = ${JSON.stringify(JWT.slice(0, JWT.lastIndexOf('.') + 5))} + ${JSON.stringify(JWT.slice(JWT.lastIndexOf('.') + 5))};
const json = { 'content-type': 'application/json' };
const get = async (url, init) => (await fetch(url, init)).text();
(async () => {
  await get('/api/me?tokenizer=bpe&access_token=' + ${secret('QUERY')}, { headers: {
    'X-Authorization': 'Bearer ' + ${secret('XAUTH')}, 'X-Api-Key': ${secret('APIKEY')},
    'X-Refresh-Token': ${secret('RTH')}, 'X-Token-Count': '42' } });
  await get('/login', { method: 'POST', headers: json, body: JSON.stringify({ user: 'alice',
    credentials: { password: ${secret('PW')} }, client_secret: ${secret('CS')}, tokens: { access: JWT } }) });
  await get('/graphql', { method: 'POST', headers: json, body: JSON.stringify({
    query: 'mutation Login($input: LoginInput!) { login(input: $input) { ok } }',
    variables: { input: { user: 'alice', password: ${secret('GQLVAR')} } } }) });
  await get('/graphql?query=' + encodeURIComponent('query Me($token: String!) { me(token: $token) { id } }') +
    '&variables=' + encodeURIComponent(JSON.stringify({ token: ${secret('GQLGET')}, first: 10 })));
  // A mutation with its arguments written inline, as simple clients build it.
  await get('/graphql', { method: 'POST', headers: json, body: JSON.stringify({
    query: 'mutation { login(user: "alice", password: "' + ${secret('GQLINLINE')} + '") { ok } }' }) });
  await get('/redirect');
  await get('/cart;jsessionid=' + ${secret('JSESSION')} + '?tokenizer=bpe');
  const form = new FormData(); form.append('username', 'alice'); form.append('password', ${secret('MULTIPART')});
  await get('/upload', { method: 'POST', body: form });
  await get('/form', { method: 'POST', body: new URLSearchParams({ username: 'alice', 'user[password]': ${secret('FORM')} }) });
  await get('/token');
  // A sign-in form with its anti-forgery token, an opaque token answer, an MFA step, an error answer.
  await get('/signin');
  await get('/session');
  await get('/mfa', { method: 'POST', headers: json, body: JSON.stringify({ code: '48' + '1516', remember: true }) });
  await get('/oauth/error');
  // A live feed whose token rides in the query, as EventSource cannot send headers.
  await new Promise((resolve) => {
    const feed = new EventSource('/events?access_token=' + ${secret('EVENTSOURCE')});
    feed.onmessage = () => { feed.close(); resolve(); };
  });
  console.log('signed in, id token ' + JWT);
  // Debugging prints of a session object, whole and as the second argument.
  const session = { user: 'alice', access_token: ${secret('CONSOLEJSON')}, expires_in: 3600 };
  console.log(JSON.stringify(session));
  console.log('session', JSON.stringify({ ...session, refresh_token: ${secret('CONSOLEARG')} }, null, 2));
  console.error('upload failed: ' + location.origin + '/files?api_key=' + ${secret('CONSOLEURL')});
  console.log('done');
})();
</script></body>`;

describe.skipIf(chromium === undefined)(
  `secrets in a real app's traffic against ${chromiumUnderTest(chromium)}`,
  () => {
    let server: Server;
    let browser: ChromiumHandle | undefined;
    let base = '';
    const events: ServiceEvent[] = [];

    beforeAll(
      async () => {
        server = createServer((req, res) => {
          req.resume();
          if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
          else if (req.url?.startsWith('/events?') === true)
            res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: hello\n\n');
          else if (req.url === '/redirect') res.writeHead(302, { location: '/cb?code=SECRET-CODE&state=ok' }).end();
          else if (req.url === '/token')
            res
              .writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'sid=SECRET-COOKIE; HttpOnly' })
              .end(JSON.stringify({ token_type: 'bearer', id_token: JWT, tokens: { access: JWT }, expires_in: 3600 }));
          else if (req.url === '/signin')
            res.writeHead(200, { 'content-type': 'text/html' }).end(
              '<form method="post"><input type="hidden" name="authenticity_token" value="SECRET-HIDDEN">' +
                '<input name="user" value="alice"><input name="pinned" value="visible-pinned">' +
                // Fields that name their secret by autocomplete, by a short word, a select.
                '<input name="f1" autocomplete="current-password" value="SECRET-AUTOFILL">' +
                '<input id="login-pw" value="SECRET-LOGINPW"><select name="pin">' +
                '<option selected value="SECRET-OPTION">SECRET-OPTIONTEXT</option></select></form>' +
                // State the server rendered for the client to take over.
                '<script>window.__INITIAL_STATE__ = {"session":{"csrfToken":"SECRET-STATE","user":"alice"}};</script>',
            );
          else if (req.url === '/session')
            res.writeHead(200, { 'content-type': 'application/json' }).end(
              JSON.stringify({
                tokens: { access: 'SECRET-OPAQUEA', refresh: 'SECRET-OPAQUER' },
                credentials: { id: 'SECRET-CREDID', value: 'SECRET-CREDVALUE' },
                session: { id: 'sess-visible-1' },
                // A numeric password where a list was expected, and a private key a page exported.
                passwords: 73194628,
                jwk: { kty: 'RSA', n: 'pub-n-visible', e: 'AQAB', d: 'SECRET-JWKD', p: 'SECRET-JWKP' },
              }),
            );
          else if (req.url === '/oauth/error')
            res
              .writeHead(400, { 'content-type': 'application/json' })
              .end(JSON.stringify({ error: { code: 'invalid_grant' }, code: 'RATE_LIMITED' }));
          else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>reset</title>ok');
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        browser = startChromium(chromium!);
        const { failed } = browser;
        const cdp = await browser.connect();
        const { sessionId } = await openBlankPage(browser, cdp);
        const bodies: Array<Promise<void>> = [];
        const responses = new Map<string, ServiceEvent>();
        let pageUrl = 'about:blank';
        let signal: { done: boolean; reset: boolean; wake?: () => void } = { done: false, reset: false };
        cdp.on(({ method, params: p, sessionId: from }) => {
          if (from !== sessionId) return;
          const context = { url: pageUrl, frame_id: p.frameId ?? '', loader_id: p.loaderId ?? '' };
          if (method === 'Page.frameNavigated') pageUrl = (p.frame as { url: string }).url;
          if (method === 'Network.requestWillBeSent' && p.redirectResponse !== undefined) {
            // The hop that answered with a redirect, as its own response.
            const r = p.redirectResponse as { url: string; status: number; headers: Record<string, unknown> };
            events.push({
              type: 'network_response',
              category: 'network',
              data: { ...context, request_id: p.requestId, url: r.url, status: r.status, headers: r.headers },
            });
          }
          const ev = serviceEvent(method, p);
          if (ev !== undefined) {
            // The body a page posted: CDP's postData, or (multipart, newer Chromium) its entries.
            const request = p.request as { postData?: string; postDataEntries?: Array<{ bytes?: string }> } | undefined;
            const entries = request?.postDataEntries?.map((e) => Buffer.from(e.bytes ?? '', 'base64').toString());
            const post = request?.postData ?? entries?.join('');
            if (post !== undefined) ev.data.post_data = post;
            events.push({ ...ev, data: { ...context, ...ev.data } });
            if (method === 'Runtime.consoleAPICalled' && ev.data.text === 'done') signal.done = true;
          }
          if (method === 'Network.responseReceived') {
            const r = p.response as { url: string; status: number; headers: Record<string, unknown>; mimeType: string };
            const data = { ...context, request_id: p.requestId, url: r.url, status: r.status, headers: r.headers };
            responses.set(p.requestId as string, {
              type: 'network_response',
              category: 'network',
              data: { ...data, mime_type: r.mimeType, resource_type: p.type },
            });
          }
          if (method === 'Network.loadingFinished') {
            const ev = responses.get(p.requestId as string);
            if (ev === undefined) return;
            // Where the service sends it: once the body is received.
            events.push(ev);
            bodies.push(
              cdp.send('Network.getResponseBody', { requestId: p.requestId }, sessionId).then(
                (r) => void (ev.data.body = r.body),
                () => undefined,
              ),
            );
          }
          if (method === 'Page.loadEventFired') {
            events.push({ type: 'page_load', category: 'page', data: { url: pageUrl, frame_id: '', loader_id: '' } });
            if (pageUrl.includes('/reset/')) signal.reset = true;
          }
          signal.wake?.();
        });
        const until = (what: string, ok: () => boolean): Promise<void> =>
          Promise.race([
            failed,
            new Promise<void>((resolve, reject) => {
              const bound = setTimeout(() => reject(new Error(`no ${what} after ${WAIT_MS / 1000} s`)), WAIT_MS);
              signal.wake = () => {
                if (!ok()) return;
                clearTimeout(bound);
                resolve();
              };
            }),
          ]);
        for (const d of ['Network', 'Runtime', 'Page'])
          await Promise.race([failed, cdp.send(`${d}.enable`, {}, sessionId)]);
        await Promise.race([failed, cdp.send('Page.navigate', { url: `${base}/` }, sessionId)]);
        await until("the page's last console line", () => signal.done);
        await Promise.all(bodies);
        // A password-reset link: the token in the path, a fragment the single-page app reads, and
        // user-info an agent put in the address.
        await Promise.race([
          failed,
          cdp.send(
            'Page.navigate',
            {
              url: `${base.replace('//', '//alice:SECRET-USERINFO@')}/reset/${JWT}?tokenizer=bpe#access_token=SECRET-FRAGMENT`,
            },
            sessionId,
          ),
        ]);
        await until('load of the reset page', () => signal.reset);
        signal = { done: true, reset: true };
      },
      2 * WAIT_MS + 15_000,
    );

    afterAll(async () => {
      await browser?.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    /** The log records and the spans of the whole visit, as the service's events map with the defaults. */
    function mapAll(): { records: BridgeLogRecord[]; spans: BridgeSpan[] } {
      const mapper = createMapper(defaultMappingOptions);
      const builder = createSpanBuilder('s-secrets');
      const ctx = { sessionId: 's-secrets', attributes: {}, epoch: 0 };
      const records: BridgeLogRecord[] = [];
      const spans: BridgeSpan[] = [];
      events.forEach((e, i) => {
        const envelope: Envelope = {
          seq: i + 1,
          event: {
            ts: 1_760_000_000_000_000 + i * 1000,
            type: e.type,
            category: e.category,
            source: { kind: 'cdp' },
            data: e.data,
          },
        };
        const record = mapper.map(envelope, ctx, 1);
        if (record !== null) records.push(record);
        spans.push(...builder.observe(envelope, record).finished);
      });
      spans.push(...builder.end('session_end'));
      return { records, spans };
    }

    it('the browser saw every secret the page sent', () => {
      const sent = JSON.stringify(events);
      for (const s of [
        'SECRET-XAUTH',
        'SECRET-PW',
        'SECRET-GQLVAR',
        'SECRET-GQLGET',
        'SECRET-CODE',
        'SECRET-JSESSION',
        'SECRET-MULTIPART',
        'SECRET-USERINFO',
        'SECRET-EVENTSOURCE',
        'SECRET-CONSOLEJSON',
        'SECRET-CONSOLEARG',
        'SECRET-GQLINLINE',
        'SECRET-META',
        'SECRET-HIDDEN',
        'SECRET-OPAQUEA',
        'SECRET-CREDVALUE',
        'SECRET-AUTOFILL',
        'SECRET-LOGINPW',
        'SECRET-OPTIONTEXT',
        'SECRET-STATE',
        'SECRET-JWKD',
        '73194628',
        '481516',
      ])
        expect(sent, s).toContain(s);
      expect(sent).toContain('SECRET-FORM');
      expect(sent).toContain(`/reset/${JWT}`);
    });

    it('no secret reaches a log record or a span', () => {
      const { records, spans } = mapAll();
      // The reset page's navigation span is named by its path, the token masked in it.
      expect(spans.map((s) => s.name)).toContain(`${base}/reset/REDACTED`);
      for (const [what, value] of [
        ['records', records],
        ['spans', spans],
      ] as const) {
        const text = JSON.stringify(value);
        expect(text.match(/SECRET-[A-Z]+/g) ?? [], what).toEqual([]);
        // The MFA step's one-time code.
        expect(text, what).not.toContain('481516');
        expect(text, what).not.toContain('73194628');
        // The JWT by its signature: a part of it left in place is still the credential.
        expect(text, what).not.toContain(SIGNATURE);
      }
    });

    it('keeps what only looks like a secret', () => {
      const text = JSON.stringify(mapAll());
      expect(text).toContain('tokenizer=bpe');
      expect(text).toMatch(/"X-Token-Count":"42"/i);
      expect(text).toContain('username=alice');
      expect(text).toContain('login(user: \\\\\\"alice\\\\\\"');
      expect(text).toContain('\\"expires_in\\":3600');
      expect(text).toMatch(/name=\\"username\\"\\r\\n\\r\\nalice/);
      // An error answer keeps its codes; a session object its id; a form its other fields.
      expect(text).toContain('{\\"error\\":{\\"code\\":\\"invalid_grant\\"},\\"code\\":\\"RATE_LIMITED\\"}');
      expect(text).toContain('sess-visible-1');
      expect(text).toContain('<input name=\\"user\\" value=\\"alice\\">');
      expect(text).toContain('<meta name=\\"csrf-token\\" content=\\"REDACTED\\">');
      expect(text).toContain('<input name=\\"pinned\\" value=\\"visible-pinned\\">');
      expect(text).toContain('\\"user\\":\\"alice\\"}};</script>');
      expect(text).toContain('\\"n\\":\\"pub-n-visible\\"');
    });
  },
);
