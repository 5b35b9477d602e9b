// The telemetry stream's GET on a socket of our own, for http:// and https:// without a proxy: a
// thousand streams in one thread, each of which may be held (back-pressure, a repair, a fair-share turn).
//
// Why not node:http: a socket read is always 64 KiB (libuv's suggested size) whatever the high-water
// mark, node:http's parser pushes a whole read into the response's buffer before the response
// pauses, and the socket stops only after one more read: a held session kept up to ~128 KiB of heap.
// Here every socket of the thread reads into one shared buffer (net.connect's `onread`), the body's
// bytes are handed to the reader during the read callback (whose frame decoder copies out only what
// a frame needs), and a held body stops the socket at once (the callback returns false): what the
// peer sends meanwhile waits in the kernel's receive buffer, which TCP's window bounds, not in ours.
// TLS reads the same way (tls.connect's `onread`): the shared buffer receives the decrypted bytes,
// one TLS record (at most 16 KiB) per callback; what the peer sent beyond the records handed out
// waits in the kernel, as over plain TCP (node:tls's own buffer holds at most the record under way).
//
//   connecting ──connect (TLS: the handshake done)──▶ request written ──head──▶ answered (the promise resolves) ──▶ body
//      │                          │                      body: reading ◀──resume / pause──▶ held
//      ├─connect timeout          ├─headers timeout      body ends (length, last chunk, close) → end()
//      └─error, abort ──▶ rejected └─malformed, closed    error, reset, malformed, abort → end(err)
//
// Bytes of the body that came with the head (before the reader started) are the only ones copied
// and held here, until start(). The connection is not reused after the body: a stream ends only
// when its session does, or is cut.
import { connect, type OnReadOpts, type Socket } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { secureContextFor, serverName, tlsPeer, tlsSession, type TlsFiles } from '../util/tls-reuse.js';
import { CONNECT_TIMEOUT, HEADERS_TIMEOUT, HttpTimeoutError } from '../util/http-timeout.js';
import { createResponseParser, type ResponseHead } from './http-response-parser.js';
import type { StreamBody } from './stream-body.js';

/** One read's worth (libuv's suggested size), shared by every socket of the thread: reads are handled synchronously. */
const READ_BUFFER_BYTES = 64 * 1024;
let shared: Buffer | undefined;
const readBuffer = (): Buffer => (shared ??= Buffer.allocUnsafe(READ_BUFFER_BYTES));
/**
 * The most a TLS record carries (RFC 8446 section 5.1): a read that size over TLS is a full record,
 * which a burst is sent as, so more may follow at once (the shared buffer is never filled by one).
 */
const TLS_RECORD_BYTES = 16 * 1024;

// node:tls is taken at the first https:// stream, not at load (about 7 MiB of RSS on Node 24):
// plain-http peers never need it. It reads into a buffer of ours as net does (`onread`,
// nodejs/node#35753), which @types/node does not declare on tls.connect's options.
const tlsConnect = (options: ConnectionOptions & { onread: OnReadOpts }): TLSSocket =>
  process.getBuiltinModule('node:tls').connect(options);

export interface StreamRequest {
  /** An http:// or https:// URL. */
  url: URL;
  /** https://: a private CA for the service's certificate, a client certificate (the system roots without). */
  tls?: TlsFiles;
  headers: Record<string, string>;
  signal: AbortSignal;
  /** Until the TCP connection is up; 0: none. */
  connectTimeoutMs: number;
  /** From the request written to the response head; 0: none. */
  headersTimeoutMs: number;
}

export interface StreamResponse extends ResponseHead {
  body: StreamBody;
}

/** Opens a connection (tracked in `open` until it closes), sends the GET and resolves with the response's head. */
export function requestStream(r: StreamRequest, open: Set<Socket>): Promise<StreamResponse> {
  return new Promise<StreamResponse>((resolve, reject) => {
    const { url, signal } = r;
    const authority = url.host;
    let request: string;
    try {
      signal.throwIfAborted();
      request = requestHead(url, r.headers);
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }

    let answered = false;
    let over = false;
    /** The reader's callbacks once it started; until then body bytes wait in `early`. */
    let onData: ((chunk: Buffer, more: boolean) => void) | undefined;
    let onEnd: ((err?: Error) => void) | undefined;
    /**
     * Body bytes read while the reader could not take them, copied: before it started, or during a
     * hold over TLS, which hands out the rest of what it decrypted from one TCP read after the
     * callback said stop (plain TCP stops at once). Handed out first once it can (handOut).
     */
    const early: Buffer[] = [];
    /** How the body ended while bytes waited in `early` or before the reader started (null: cleanly). */
    let endedEarly: Error | null | undefined;
    let held = false;
    /** Where this read's body bytes are gathered, in place (the body's pieces only move down). */
    let out = 0;

    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const secure = url.protocol === 'https:';
    const onread = { buffer: readBuffer, callback: (n: number, buf: Uint8Array) => onRead(n, buf as Buffer) };
    let socket: Socket;
    if (secure) {
      // One context per client's files, and the peer's last session offered: a thousand streams
      // reconnecting after a cut resume rather than each doing a full handshake (util/tls-reuse.ts).
      const port = Number(url.port) || 443;
      const servername = serverName(host);
      const resume = tlsSession(r.tls, tlsPeer(host, port, servername));
      const tls = tlsConnect({
        host,
        port,
        ...(servername !== undefined ? { servername } : {}),
        secureContext: secureContextFor(r.tls),
        ...(resume.session !== undefined ? { session: resume.session } : {}),
        onread,
      });
      resume.track(tls);
      socket = tls;
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 1000);
    } else
      socket = connect({
        host,
        port: Number(url.port) || 80,
        noDelay: true,
        // As node:http's keep-alive agent sets on its sockets: the kernel probes a silent peer.
        keepAlive: true,
        keepAliveInitialDelay: 1000,
        onread,
      });
    /** A read after which another may follow before the event loop turns (StreamBody's `more`). */
    const fullRead = secure ? TLS_RECORD_BYTES : READ_BUFFER_BYTES;
    open.add(socket);

    const stopTimers = (): void => {
      clearTimeout(connectTimer);
      clearTimeout(headersTimer);
    };
    let headersTimer: NodeJS.Timeout | undefined;
    const connectTimer =
      r.connectTimeoutMs > 0
        ? setTimeout(
            () =>
              fail(
                new HttpTimeoutError(CONNECT_TIMEOUT, `no connection to ${authority} within ${r.connectTimeoutMs} ms`),
              ),
            r.connectTimeoutMs,
          )
        : undefined;

    /** The end of the exchange: before the head, the promise fails; after it, the body ends. */
    const fail = (err: Error | null): void => {
      if (over) return;
      over = true;
      stopTimers();
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      open.delete(socket);
      if (!answered) {
        reject(err ?? new Error('the connection closed before a response'));
        return;
      }
      if (onEnd && early.length === 0) {
        // Nothing after the end.
        const end = onEnd;
        onData = undefined;
        onEnd = undefined;
        end(err ?? undefined);
      } else endedEarly = err;
    };
    const onAbort = (): void => fail(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });

    const parser = createResponseParser({
      head: (head) => {
        answered = true;
        clearTimeout(headersTimer);
        resolve({ ...head, body });
      },
      body: (buf, start, end) => {
        if (start !== out) buf.copy(buf, out, start, end);
        out += end - start;
      },
      end: () => {
        complete = true;
      },
    });
    /** The body's end was parsed: acted on once the read's bytes are handed out. */
    let complete = false;

    function onRead(n: number, buf: Buffer): boolean {
      if (over) return false;
      out = 0;
      let broken: Error | undefined;
      try {
        parser.feed(buf, n);
      } catch (err) {
        broken = err as Error;
      }
      // The bytes before a malformed part or the end are the body's: handed out first.
      if (out > 0) {
        const chunk = buf.subarray(0, out);
        // A read that filled the buffer (over TLS: a whole record) is followed by another at once
        // (libuv reads on while they do).
        if (onData && !held) onData(chunk, n >= fullRead);
        else early.push(Buffer.from(chunk));
      }
      if (broken) fail(broken);
      else if (complete) fail(null);
      // Answered but not started yet, or held: the socket stops here and the kernel keeps the rest.
      return !over && (!answered || (onData !== undefined && !held));
    }

    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(connectTimer);
      if (r.headersTimeoutMs > 0)
        headersTimer = setTimeout(
          () =>
            fail(
              new HttpTimeoutError(HEADERS_TIMEOUT, `no response from ${authority} within ${r.headersTimeoutMs} ms`),
            ),
          r.headersTimeoutMs,
        );
      socket.write(request, 'latin1');
    });
    socket.on('error', (err) => fail(err));
    socket.once('end', () => {
      try {
        parser.eof();
        fail(null);
      } catch (err) {
        fail(err as Error);
      }
    });
    socket.once('close', () => fail(new Error('the connection closed')));

    /**
     * What waits in `early`, then how the body ended meanwhile; stops at a hold (what is left waits
     * for resume). With nothing waiting, the socket reads again.
     */
    const handOut = (): void => {
      // The socket stopped after the read that filled `early`: its chunks are not followed at once.
      while (early.length > 0 && onData && !held) onData(early.shift()!, false);
      // Destroyed meanwhile (by the reader, or by a failure already reported), or held again.
      if (!onEnd || held || early.length > 0) return;
      if (endedEarly !== undefined) {
        const why = endedEarly;
        const end = onEnd;
        endedEarly = undefined;
        onData = undefined;
        onEnd = undefined;
        end(why ?? undefined);
      } else if (!over) socket.resume();
    };

    const body: StreamBody = {
      start(data, end) {
        onData = data;
        onEnd = end;
        // What came with the head, then how the body ended meanwhile, after this turn: the
        // reader's own setup (as with a stream's finished()) completes first.
        process.nextTick(handOut);
      },
      pause() {
        if (held) return;
        held = true;
        // Within a read the callback's `false` stops the socket; between reads this does.
        socket.pause();
      },
      resume() {
        if (!held) return;
        held = false;
        // What waited is handed out after this turn, as a socket's next read would be, never from
        // inside the caller's own resume().
        if (early.length > 0 || endedEarly !== undefined) process.nextTick(handOut);
        else if (!over && onData) socket.resume();
      },
      destroy(err) {
        onData = undefined;
        onEnd = undefined;
        fail(err ?? null);
      },
    };
  });
}

/** RFC 9110 field names: tokens. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** What node:http refuses in a field value: controls other than tab (CR, LF, NUL, …) and anything past U+00FF. */
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * The request's bytes (written as latin1, as node:http writes a head). A header node:http would
 * refuse throws as it does: a value with CR or LF would split the request (a key file ending in a
 * newline), and the https:// and proxied streams, which node:http sends, must not behave otherwise.
 */
function requestHead(url: URL, headers: Record<string, string>): string {
  let head = `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name))
      throw Object.assign(new TypeError(`Header name must be a valid HTTP token ["${name}"]`), {
        code: 'ERR_INVALID_HTTP_TOKEN',
      });
    if (BAD_VALUE_CHAR.test(value))
      throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), {
        code: 'ERR_INVALID_CHAR',
      });
    head += `${name}: ${value}\r\n`;
  }
  return `${head}\r\n`;
}

/** What an aborted signal fails a request with: its reason (a TimeoutError for AbortSignal.timeout()). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error('the request was aborted'), { name: 'AbortError', code: 'ABORT_ERR' });
}
