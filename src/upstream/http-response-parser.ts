// A small, strict HTTP/1.1 response parser for the one request the bridge reads on a socket of its
// own: the telemetry stream's GET (upstream/stream-request.ts). Pure: bytes in, a head and body
// pieces out, no I/O.
//
//   head ──blank line──▶ body (one of: chunked │ content-length │ until close │ none) ──▶ done
//    │  1xx: another head follows (RFC 9110 §15.2); 204 / 304: no body (RFC 9112 §6.3 rule 1)
//    └─ anything malformed, at any point ──▶ an HttpParseError thrown from feed() / eof()
//
// How the body's length is known, in the order of RFC 9112 §6.3: a Transfer-Encoding whose last
// coding is `chunked` is chunked; any other Transfer-Encoding is read until the connection closes
// (rule 4, for a response); then a Content-Length (a list of one repeated value is that value, any
// other list is an error: rule 5); else the body runs until the connection closes (rule 8).
// Transfer-Encoding wins over Content-Length (rule 3).
//
// Body pieces are handed out as ranges of the buffer fed (`body(buf, start, end)`), never copies:
// the caller owns the buffer and decides what to keep. The head is the only thing held across
// feeds, bounded by `maxHeadBytes` (as node:http's 16 KiB --max-http-header-size); trailers count
// against the same bound and are dropped. A lone LF ends a line as a CRLF does (RFC 9112 §2.2
// allows it); an obsolete line folding (a header line starting with a space) is rejected (§5.2).

/** A response the parser cannot read: the connection is unusable. */
export class HttpParseError extends Error {
  override readonly name = 'HttpParseError';
  readonly code = 'HTTP_PARSE';
}

export interface ResponseHead {
  statusCode: number;
  /** Lowercased names; repeated fields joined with ", " (RFC 9110 §5.3). */
  headers: Record<string, string>;
}

export interface ResponseHandlers {
  head(head: ResponseHead): void;
  /** A piece of the body: `buf[start, end)`, valid during the call only. */
  body(buf: Buffer, start: number, end: number): void;
  /** The body is complete (its length reached, the last chunk, or the connection's end). */
  end(): void;
}

export interface ResponseParser {
  /** Parses `buf[0, n)`. Bytes after the end of the response are ignored. Throws HttpParseError. */
  feed(buf: Buffer, n?: number): void;
  /** The connection ended: completes a body read until close; anything else unfinished throws. */
  eof(): void;
}

export const MAX_HEAD_BYTES = 16 * 1024;
/** Hex digits of a chunk size: 2^48 bytes is far past any chunk, and stays exact in a number. */
const MAX_SIZE_DIGITS = 12;
/** A chunk-size line with its extensions (which are ignored). */
const MAX_SIZE_LINE = 1024;

const LF = 10;
const CR = 13;
const STATUS_LINE = /^HTTP\/1\.[01] ([1-9]\d\d)(?: [\t\x20-\x7e\x80-\xff]*)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const HEX = /^[0-9A-Fa-f]+$/;

type State =
  | { s: 'head' }
  | { s: 'length'; left: number }
  | { s: 'close' }
  | { s: 'size' }
  | { s: 'data'; left: number }
  | { s: 'data-end'; sawCr: boolean }
  | { s: 'trailers' }
  | { s: 'done' };

export function createResponseParser(on: ResponseHandlers, maxHeadBytes = MAX_HEAD_BYTES): ResponseParser {
  let state: State = { s: 'head' };
  /** The unfinished line of the head, a chunk size or a trailer (copied: the caller's buffer is reused). */
  let line = '';
  /** The head's lines so far, and its bytes (trailers' too) against maxHeadBytes. */
  let lines: string[] = [];
  let headBytes = 0;

  const fail = (why: string): never => {
    state = { s: 'done' };
    throw new HttpParseError(why);
  };

  const finish = (): void => {
    state = { s: 'done' };
    on.end();
  };

  /** A complete head: its status, fields and how its body is framed. */
  const headEnded = (): void => {
    const [status = '', ...fields] = lines;
    lines = [];
    headBytes = 0;
    const m = STATUS_LINE.exec(status);
    if (!m) return fail(`not an HTTP/1.1 status line: ${JSON.stringify(status.slice(0, 80))}`);
    const statusCode = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const f of fields) {
      if (f.startsWith(' ') || f.startsWith('\t')) return fail('obsolete line folding in the response head');
      const colon = f.indexOf(':');
      const name = colon > 0 ? f.slice(0, colon) : '';
      if (!TOKEN.test(name)) return fail(`malformed header line: ${JSON.stringify(f.slice(0, 80))}`);
      const value = f.slice(colon + 1).trim();
      if (!FIELD_VALUE.test(value)) return fail(`control characters in the value of ${name}`);
      const key = name.toLowerCase();
      const had = headers[key];
      headers[key] = had === undefined ? value : `${had}, ${value}`;
    }
    if (statusCode < 200) {
      // An interim answer (100 Continue, 103 Early Hints): the real one follows. 101 would switch
      // protocols, which a GET of ours never asks for.
      if (statusCode === 101) return fail('101 Switching Protocols to a request that asked for none');
      state = { s: 'head' };
      return;
    }
    on.head({ statusCode, headers });
    if (state.s === 'done') return; // the head's handler gave up on the response
    if (statusCode === 204 || statusCode === 304) return finish();
    const te = headers['transfer-encoding'];
    if (te !== undefined) {
      const codings = te.split(',');
      const last = codings[codings.length - 1]!.trim().toLowerCase();
      state = last === 'chunked' ? { s: 'size' } : { s: 'close' };
      return;
    }
    const cl = headers['content-length'];
    if (cl !== undefined) {
      const values = new Set(cl.split(',').map((v) => v.trim()));
      const [only] = values;
      // 1*DIGIT: leading zeros do not count against the 15 digits a number holds exactly.
      const digits = values.size === 1 ? /^0*(\d{1,15})$/.exec(only!) : null;
      if (!digits) return fail(`invalid Content-Length: ${cl.slice(0, 40)}`);
      const left = Number(digits[1]);
      if (left === 0) return finish();
      state = { s: 'length', left };
      return;
    }
    state = { s: 'close' };
  };

  /** One line of a chunked body's framing (a size, a trailer) or of the head, without its end. */
  const lineEnded = (text: string): void => {
    switch (state.s) {
      case 'head':
        if (text === '') {
          if (lines.length > 0) headEnded();
          // Blank lines before a status line are tolerated (RFC 9112 §2.2).
          return;
        }
        lines.push(text);
        return;
      case 'size': {
        const semi = text.indexOf(';');
        const digits = (semi >= 0 ? text.slice(0, semi) : text).trimEnd();
        // Leading zeros are allowed (1*HEXDIG) and do not count against the bound on its digits.
        const significant = digits.replace(/^0+(?=.)/, '');
        if (!HEX.test(digits) || significant.length > MAX_SIZE_DIGITS)
          return fail(`invalid chunk size: ${JSON.stringify(text.slice(0, 40))}`);
        const size = parseInt(significant, 16);
        state = size === 0 ? { s: 'trailers' } : { s: 'data', left: size };
        return;
      }
      case 'trailers':
        if (text === '') return finish();
        return;
      default:
        return;
    }
  };

  /** Takes a line ending at or after `i`; returns where parsing goes on. */
  const takeLine = (buf: Buffer, i: number, n: number): number => {
    const lf = buf.indexOf(LF, i);
    const stop = lf >= 0 && lf < n ? lf : n;
    const limit = state.s === 'size' ? MAX_SIZE_LINE : maxHeadBytes;
    const counted = state.s === 'size' ? line.length : headBytes;
    if (counted + (stop - i) > limit)
      return fail(state.s === 'size' ? 'a chunk-size line is too long' : `response head over ${limit} bytes`);
    if (state.s !== 'size') headBytes += stop - i + (stop < n ? 1 : 0);
    line += buf.toString('latin1', i, stop);
    if (stop === n) return n;
    const text = line.endsWith('\r') ? line.slice(0, -1) : line;
    line = '';
    lineEnded(text);
    return stop + 1;
  };

  /** The size plainSizeLine read. */
  let chunkSize = 0;
  /**
   * A chunk-size line that is nothing but hex digits and its end (CRLF or LF), whole in `buf[i, n)`:
   * its size in `chunkSize`, and where parsing goes on. 0 for anything else (an extension, spaces,
   * a line cut by the read, too many digits, not hex): takeLine then reads it as text, with every
   * rule and error, so both paths agree on every line (the tests cut every line at every byte).
   */
  const plainSizeLine = (buf: Buffer, i: number, n: number): number => {
    let size = 0;
    let significant = 0;
    let j = i;
    for (; j < n; j++) {
      const c = buf[j]!;
      let v: number;
      if (c >= 48 && c <= 57) v = c - 48;
      else if (c >= 97 && c <= 102) v = c - 87;
      else if (c >= 65 && c <= 70) v = c - 55;
      else break;
      if (significant > 0 || v > 0) significant++;
      if (significant > MAX_SIZE_DIGITS) return 0;
      size = size * 16 + v;
    }
    if (j === i || j >= n) return 0;
    if (buf[j] === LF) j++;
    else if (buf[j] === CR && j + 1 < n && buf[j + 1] === LF) j += 2;
    else return 0;
    if (j - i > MAX_SIZE_LINE) return 0;
    chunkSize = size;
    return j;
  };

  return {
    feed(buf, n = buf.length) {
      let i = 0;
      while (i < n) {
        switch (state.s) {
          case 'size':
            if (line === '') {
              // The common case, a whole chunk-size line of hex digits in this read: read as bytes.
              const next = plainSizeLine(buf, i, n);
              if (next > 0) {
                state = chunkSize === 0 ? { s: 'trailers' } : { s: 'data', left: chunkSize };
                i = next;
                break;
              }
            }
            i = takeLine(buf, i, n);
            break;
          case 'head':
          case 'trailers':
            i = takeLine(buf, i, n);
            break;
          case 'length':
          case 'data': {
            // A known number of bytes: the whole body's, or one chunk's.
            const take = Math.min(state.left, n - i);
            on.body(buf, i, i + take);
            i += take;
            state.left -= take;
            if (state.left > 0) break;
            if (state.s === 'length') finish();
            else state = { s: 'data-end', sawCr: false };
            break;
          }
          case 'close':
            on.body(buf, i, n);
            i = n;
            break;
          case 'data-end': {
            // The CRLF after a chunk's data (RFC 9112 §7.1); a lone LF is taken as one.
            const b = buf[i]!;
            if (b === CR && !state.sawCr) state.sawCr = true;
            else if (b === LF) state = { s: 'size' };
            else fail('a chunk not followed by CRLF');
            i++;
            break;
          }
          case 'done':
            return;
        }
      }
    },
    eof() {
      switch (state.s) {
        case 'close':
          return finish();
        case 'done':
          return;
        case 'head':
          return fail(
            lines.length === 0 && line === ''
              ? 'the connection closed before a response'
              : 'the connection closed in the response head',
          );
        case 'length':
          return fail(`the connection closed ${state.left} bytes before the body's end`);
        default:
          return fail('the connection closed inside a chunked body');
      }
    },
  };
}
