// Secrets in fields the key-name rules used to miss, measured where they would leak: at a real OTLP
// receiver, through the whole bridge (simulator → stream → mapping → spool → export), and in the
// spool file on the way (it holds what was exported, so it must not hold the secrets either).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FAST, harness, type Harness } from '../../helpers/harness.js';
import type { Bridge } from '../../../src/daemon/bridge.js';

let h: Harness;
let bridge: Bridge | undefined;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await bridge?.shutdown(0);
  bridge = undefined;
  await h.close();
});

const TS = 1_760_000_000_000_000;

it('hash-routed codes, metadata URLs, URL arrays, path parameters and body secrets arrive masked', async () => {
  const s = h.sim.createSession('s1');
  s.emitEvent({ type: 'page_navigation', ts: TS, data: { url: 'https://app.example.com/#/verify?code=SECRET-HASH' } });
  s.emitEvent({
    type: 'page_navigation',
    ts: TS + 1,
    data: { url: 'https://app.example.com/' },
    source: {
      kind: 'cdp',
      event: 'Page.frameNavigated',
      metadata: { ws: 'wss://proxy.example/devtools/browser/b1?jwt=SECRET-JWT' },
    },
  });
  s.emitEvent({
    type: 'network_response',
    ts: TS + 2,
    data: {
      url: 'https://a.example/',
      status: 302,
      redirect_chain: [
        'https://a.example/start?token=SECRET-CHAIN',
        'https://b.example/cart;jsessionid=SECRET-JSESSION',
      ],
    },
  });
  s.emitEvent({
    type: 'network_request',
    ts: TS + 3,
    data: { url: 'https://login.example/', method: 'POST', post_data: '{"user":"alice","password":"SECRET-PW"}' },
  });
  s.emitEvent({
    type: 'network_request',
    ts: TS + 4,
    data: {
      url: 'https://idp.example/token',
      method: 'POST',
      post_data: 'grant_type=client_credentials&client_secret=SECRET-CS',
    },
  });
  s.emitEvent({
    type: 'network_response',
    ts: TS + 5,
    data: { url: 'https://idp.example/token', status: 200, body: '{"access_token":"SECRET-AT","token_type":"bearer"}' },
  });
  bridge = await h.startBridge({ ...FAST, sessions: ['s1'] });
  await h.receiver.waitFor((rs) => rs.filter((r) => r.attributes['browser.session.id'] === 's1').length >= 6);
  const text = JSON.stringify(h.receiver.records, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  expect(text).not.toMatch(/SECRET-/);
  expect(text).toContain('#/verify?code=REDACTED');
  expect(text).toContain('devtools/browser/b1?jwt=REDACTED');
  expect(text).toContain(';jsessionid=REDACTED');
  expect(text).toContain('client_secret=REDACTED');
  // The spool on disk carried the same bytes (SQLite file and its WAL).
  for (const f of ['bridge.db', 'bridge.db-wal']) {
    let bytes = '';
    try {
      bytes = readFileSync(join(h.stateDir, f)).toString('latin1');
    } catch {
      continue;
    }
    expect(bytes, f).not.toMatch(/SECRET-/);
  }
});

it('cut, prefixed and multipart bodies, API-key headers and signed URLs in console text arrive masked', async () => {
  const s = h.sim.createSession('s2');
  const history = Array.from({ length: 150 }, (_, i) => ({ order: i, status: 'shipped' }));
  // As the service sends a body over 8,192 bytes: cut, `...[truncated]` appended, no longer JSON.
  const cut = JSON.stringify({ refresh_token: 'SECRET-RT', history }).slice(0, 8178) + '...[truncated]';
  const boundary = '----b1';
  const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="pwd"\r\n\r\nSECRET-MP\r\n--${boundary}--\r\n`;
  const signed = 'https://files.example.com/r.pdf?X-Amz-Signature=SECRET-SIG';
  const events: Array<{ type: string; data: Record<string, unknown> }> = [
    { type: 'network_response', data: { url: 'https://idp.example/token', status: 200, body: cut } },
    {
      type: 'network_response',
      data: { url: 'https://api.example/', status: 200, body: `)]}'\n{"id_token":"SECRET-X"}` },
    },
    { type: 'network_request', data: { url: 'https://api.example/up', method: 'POST', post_data: multipart } },
    {
      type: 'network_request',
      data: { url: 'https://api.example/', method: 'GET', headers: { 'Ocp-Apim-Subscription-Key': 'SECRET-APIM' } },
    },
    {
      type: 'console_log',
      data: { url: 'https://app.example/', level: 'log', text: `ready: ${signed}`, args: [signed] },
    },
  ];
  events.forEach((e, i) => s.emitEvent({ ...e, ts: TS + i }));
  bridge = await h.startBridge({ ...FAST, sessions: ['s2'] });
  await h.receiver.waitFor((rs) => rs.filter((r) => r.attributes['browser.session.id'] === 's2').length >= 5);
  const text = JSON.stringify(h.receiver.records, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  expect(text).not.toMatch(/SECRET-/);
  // What is not secret stays readable: the rest of the cut body and its marker.
  expect(text).toContain('\\"refresh_token\\":\\"REDACTED\\",\\"history\\":[{\\"order\\":0');
  expect(text).toContain('...[truncated]');
  expect(text).toContain('X-Amz-Signature=REDACTED');
  for (const f of ['bridge.db', 'bridge.db-wal']) {
    let bytes = '';
    try {
      bytes = readFileSync(join(h.stateDir, f)).toString('latin1');
    } catch {
      continue;
    }
    expect(bytes, f).not.toMatch(/SECRET-/);
  }
});
