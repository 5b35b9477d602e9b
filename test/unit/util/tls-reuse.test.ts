// What TLS connections share (src/util/tls-reuse.ts): the session cache's rules, with stand-in
// sockets (the handshakes themselves are in test/integration/util/http-client.test.ts and
// test/integration/upstream/stream-request.test.ts).
import { EventEmitter } from 'node:events';
import type { TLSSocket } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { secureContextFor, tlsSession, type TlsFiles } from '../../../src/util/tls-reuse.js';

/** A stand-in socket; its owner's own error listener, as every socket here has one. */
function socket(): TLSSocket & EventEmitter {
  const s = new EventEmitter() as TLSSocket & EventEmitter;
  s.on('error', () => undefined);
  return s;
}
const ticket = (n: number): Buffer => Buffer.from(`ticket-${n}`);

describe('tlsSession', () => {
  it('offers the last session a peer gave, per peer and per files object', () => {
    const files: TlsFiles = {};
    const first = tlsSession(files, 'a:443');
    expect(first.session).toBeUndefined();
    const s = socket();
    first.track(s);
    s.emit('session', ticket(1));
    s.emit('session', ticket(2));
    expect(tlsSession(files, 'a:443').session).toEqual(ticket(2));
    expect(tlsSession(files, 'b:443').session).toBeUndefined();
    expect(tlsSession({}, 'a:443').session).toBeUndefined();
  });

  it('forgets the offered session when its connection fails before the handshake, not after', () => {
    const files: TlsFiles = {};
    const giver = socket();
    tlsSession(files, 'p').track(giver);
    giver.emit('session', ticket(1));

    const ok = tlsSession(files, 'p');
    const okSocket = socket();
    ok.track(okSocket);
    okSocket.emit('secureConnect');
    okSocket.emit('error', new Error('reset later'));
    expect(tlsSession(files, 'p').session).toEqual(ticket(1));

    const failing = tlsSession(files, 'p');
    const failingSocket = socket();
    failing.track(failingSocket);
    failingSocket.emit('error', new Error('handshake failed'));
    expect(tlsSession(files, 'p').session).toBeUndefined();
  });

  it.each(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])(
    'keeps the offered session when the connection never reached the peer (%s)',
    (code) => {
      const files: TlsFiles = {};
      const giver = socket();
      tlsSession(files, 'p').track(giver);
      giver.emit('session', ticket(1));
      const failing = socket();
      tlsSession(files, 'p').track(failing);
      failing.emit('error', Object.assign(new Error(code), { code }));
      expect(tlsSession(files, 'p').session).toEqual(ticket(1));
    },
  );

  it('a failure does not forget a newer session another connection stored meanwhile', () => {
    const files: TlsFiles = {};
    const giver = socket();
    tlsSession(files, 'p').track(giver);
    giver.emit('session', ticket(1));
    const failing = socket();
    tlsSession(files, 'p').track(failing);
    giver.emit('session', ticket(2));
    failing.emit('error', new Error('handshake failed'));
    expect(tlsSession(files, 'p').session).toEqual(ticket(2));
  });

  it('remembers 64 peers at most, dropping the one heard from longest ago', () => {
    const files: TlsFiles = {};
    const give = (peer: string, n: number): void => {
      const s = socket();
      tlsSession(files, peer).track(s);
      s.emit('session', ticket(n));
    };
    for (let i = 0; i < 64; i++) give(`peer-${i}`, i);
    give('peer-0', 100); // heard from again: now the newest
    give('peer-64', 64);
    expect(tlsSession(files, 'peer-0').session).toEqual(ticket(100));
    expect(tlsSession(files, 'peer-1').session).toBeUndefined();
    expect(tlsSession(files, 'peer-64').session).toEqual(ticket(64));
  });
});

describe('secureContextFor', () => {
  it('makes one context per files object', () => {
    const files: TlsFiles = {};
    expect(secureContextFor(files)).toBe(secureContextFor(files));
    expect(secureContextFor({})).not.toBe(secureContextFor(files));
  });
});
