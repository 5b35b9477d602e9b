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
