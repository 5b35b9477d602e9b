// A minimal protobuf writer for the OTLP messages the bridge sends, tuned for its hot path: one
// growable buffer reused for every record, strings written with native UTF-8 (buf.write) instead of
// a character loop, and nested lengths back-patched in place. A nested message reserves one length
// byte (most KeyValue/AnyValue messages are under 128 bytes); a longer one shifts its content right
// by the extra varint bytes, which costs one memmove per long message instead of a sizing pass.
// Messages known to be long (a record, its body, a long string's AnyValue or KeyValue) reserve the
// width they most likely need (begin's width; anyString from the string's length). In the heavy mix
// one-byte reservations moved content 4.4 times a record, 4.9 KB (three times the record: each level
// of a long body moved it again, a screenshot's 30 KB four times); now 1.9 times, 1.8 KB (nested
// objects and arrays, the outer levels of a screenshot's record, small bodies moved back by a byte).
// Lengths stay minimal varints either way: a wrong guess costs the move it was to save, never
// different bytes. The commonest KeyValues (a cached key beside a short string or a non-negative
// integer) skip the nesting altogether: keyStringValue and keyUintValue write them in one piece.

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;

/** Strings up to this many UTF-16 units are at most 127 UTF-8 bytes: one length byte is enough. */
const SHORT_STRING = 42;
/** Strings up to this many UTF-16 units are at most 120 UTF-8 bytes: an AnyValue of one is under 128. */
export const SHORT_VALUE = 40;
const TWO_32 = 4294967296;

export class ProtoWriter {
  buf: Buffer;
  pos = 0;

  constructor(initialBytes = 64 * 1024) {
    // Never from Node's shared pool: the ingest outbox transfers this buffer to the main thread,
    // and since Node 22 a pooled buffer (anything under half the pool) cannot be transferred.
    this.buf = Buffer.allocUnsafeSlow(initialBytes);
  }

  reset(): void {
    this.pos = 0;
  }

  /** Makes room for `n` more bytes (amortized doubling; the old content is kept). */
  ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafeSlow(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** The bytes written since `start`, copied out (the writer's buffer is reused). */
  copy(start = 0): Buffer {
    const out = Buffer.allocUnsafe(this.pos - start);
    this.buf.copy(out, 0, start, this.pos);
    return out;
  }

  /**
   * The bytes written, copied into memory of their own rather than Node's shared pool: for bytes
   * kept for the life of the process. A small pooled copy shares its pool's slab (64 KiB since
   * Node 24) with whatever was allocated around it and keeps all of it alive: a cache that gains
   * an entry now and then kept a new slab each time.
   */
  copyAlone(): Buffer {
    const out = Buffer.allocUnsafeSlow(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }

  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  /** Unsigned varint of a non-negative safe integer. */
  varint(n: number): void {
    this.ensure(10);
    const b = this.buf;
    let p = this.pos;
    while (n >= 0x80) {
      b[p++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    b[p++] = n;
    this.pos = p;
  }

  /** int64 as protobuf writes it: negative values are their 64-bit two's complement (10 bytes). */
  int64(n: number): void {
    if (n >= 0) {
      this.varint(n);
      return;
    }
    const v = BigInt.asUintN(64, BigInt(n));
    this.ensure(10);
    let x = v;
    for (let i = 0; i < 9; i++) {
      this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
  }

  /**
   * fixed64 nanoseconds from Unix microseconds, exactly: us × 1000 exceeds 2^53, so the product is
   * built from 32-bit halves (every intermediate stays below 2^53).
   */
  fixed64NanosFromMicros(field: number, us: number): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    const hiUs = Math.floor(us / TWO_32);
    const loNs = (us - hiUs * TWO_32) * 1000; // < 2^42
    const carry = Math.floor(loNs / TWO_32);
    // Both halves are below 2^32: stored byte by byte (Buffer#writeUInt32LE range-checks each call;
    // two timestamps per record).
    const lo = loNs - carry * TWO_32;
    const hi = hiUs * 1000 + carry;
    const b = this.buf;
    const p = this.pos;
    b[p] = lo;
    b[p + 1] = lo >>> 8;
    b[p + 2] = lo >>> 16;
    b[p + 3] = lo >>> 24;
    b[p + 4] = hi;
    b[p + 5] = hi >>> 8;
    b[p + 6] = hi >>> 16;
    b[p + 7] = hi >>> 24;
    this.pos = p + 8;
  }

  double(field: number, v: number): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  fixed32(field: number, n: number): void {
    this.tag(field, 5);
    this.ensure(4);
    this.buf.writeUInt32LE(n >>> 0, this.pos);
    this.pos += 4;
  }

  /** A bytes field from lowercase hex (trace and span ids), without an intermediate Buffer. */
  hexBytes(field: number, hex: string): void {
    const n = hex.length >>> 1;
    this.tag(field, WIRE_LEN);
    this.varint(n);
    this.ensure(n);
    this.pos += this.buf.write(hex, this.pos, n, 'hex');
  }

  uintField(field: number, n: number): void {
    this.tag(field, WIRE_VARINT);
    this.varint(n);
  }

  int64Field(field: number, n: number): void {
    this.tag(field, WIRE_VARINT);
    this.int64(n);
  }

  boolField(field: number, v: boolean): void {
    this.tag(field, WIRE_VARINT);
    this.ensure(1);
    this.buf[this.pos++] = v ? 1 : 0;
  }

  string(field: number, s: string): void {
    this.tag(field, WIRE_LEN);
    const len = s.length;
    if (len <= SHORT_STRING) {
      this.ensure(1 + len * 3);
      const b = this.buf;
      const start = this.pos + 1;
      // At most 127 bytes: the length is one byte, written after the string (no byte count first).
      const n = b.utf8Write(s, start);
      b[this.pos] = n;
      this.pos = start + n;
      return;
    }
    // Written before its length is known: a byte count first (Buffer.byteLength) would read the
    // string twice. Room for the length of an ASCII string is reserved; a string whose UTF-8 is
    // longer needs a wider varint only now and then, and its bytes move right by that much.
    const room = len * 3;
    if (this.pos + 10 + room > this.buf.length) {
      // A large string (a screenshot) may not fit thrice over: sized exactly rather than grown.
      const n = Buffer.byteLength(s, 'utf8');
      this.varint(n);
      this.ensure(n);
      this.pos += this.buf.utf8Write(s, this.pos);
      return;
    }
    const reserved = varintSize(len);
    const start = this.pos + reserved;
    const n = this.buf.utf8Write(s, start);
    const wide = varintSize(n);
    if (wide > reserved) this.buf.copyWithin(this.pos + wide, start, start + n);
    this.pos = writeVarint(this.buf, this.pos, n) + n;
  }

  /**
   * AnyValue{string_value} as field `field` (below 16): both lengths fit one byte for a string of
   * up to SHORT_VALUE units, so they are written with the bytes, without a nested message's
   * bookkeeping. Most attribute and body values are such strings.
   */
  anyString(field: number, s: string): void {
    const len = s.length;
    if (len > SHORT_VALUE) {
      // Room for the length the AnyValue has when the string is ASCII: its UTF-8 is never shorter.
      const width = varintSize(1 + varintSize(len) + len);
      const at = this.begin(field, width);
      this.string(1, s);
      this.end(at, width);
      return;
    }
    this.ensure(4 + len * 3);
    const b = this.buf;
    const p = this.pos;
    const n = b.utf8Write(s, p + 4);
    b[p] = (field << 3) | WIRE_LEN;
    b[p + 1] = n + 2;
    b[p + 2] = (1 << 3) | WIRE_LEN;
    b[p + 3] = n;
    this.pos = p + 4 + n;
  }

  /**
   * KeyValue{1 key, 2 AnyValue{1 string_value}} as field `field`, from the key's field encoded
   * earlier (`key`: tag, length and bytes, as cached by the caller) and a value of up to
   * SHORT_VALUE units: one room check and one native write for the whole KeyValue, its four
   * headers filled in around the value's bytes. Two of three strings a heavy-mix record carries are
   * such a value beside a cached key; through begin / key / anyString / end each was four calls and
   * three room checks more. The KeyValue's length takes two bytes only past 127 (a long key beside a
   * long value): then its content moves right by one.
   */
  keyStringValue(field: number, key: Uint8Array, s: string): void {
    const k = key.length;
    this.ensure(7 + k + s.length * 3);
    const b = this.buf;
    const p = this.pos;
    const at = p + 6 + k;
    const n = b.utf8Write(s, at);
    b.set(key, p + 2);
    b[at - 4] = (2 << 3) | WIRE_LEN;
    b[at - 3] = n + 2;
    b[at - 2] = (1 << 3) | WIRE_LEN;
    b[at - 1] = n;
    b[p] = (field << 3) | WIRE_LEN;
    const len = k + 4 + n;
    if (len < 0x80) {
      b[p + 1] = len;
      this.pos = at + n;
      return;
    }
    b.copyWithin(p + 3, p + 2, at + n);
    b[p + 1] = (len & 0x7f) | 0x80;
    b[p + 2] = len >>> 7;
    this.pos = at + n + 1;
  }

  /**
   * KeyValue{1 key, 2 AnyValue{3 int_value}} for a non-negative safe integer, as keyStringValue
   * writes a short string: one room check, every length known before the first byte.
   */
  keyUintValue(field: number, key: Uint8Array, n: number): void {
    const k = key.length;
    const size = varintSize(n);
    this.ensure(6 + k + size);
    const b = this.buf;
    let p = this.pos;
    const len = k + 3 + size;
    b[p++] = (field << 3) | WIRE_LEN;
    if (len < 0x80) b[p++] = len;
    else {
      b[p++] = (len & 0x7f) | 0x80;
      b[p++] = len >>> 7;
    }
    b.set(key, p);
    p += k;
    b[p++] = (2 << 3) | WIRE_LEN;
    b[p++] = 1 + size;
    b[p++] = (3 << 3) | WIRE_VARINT;
    this.pos = writeVarint(b, p, n);
  }

  /** Writes bytes encoded earlier (e.g. a cached field), as they are. */
  raw(data: Uint8Array): void {
    const n = data.length;
    this.ensure(n);
    const b = this.buf;
    const p = this.pos;
    // Cached fields are short: a loop beats a native copy call.
    for (let i = 0; i < n; i++) b[p + i] = data[i]!;
    this.pos = p + n;
  }

  bytes(field: number, data: Uint8Array): void {
    this.tag(field, WIRE_LEN);
    this.varint(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  /**
   * Starts a nested message; returns the position to pass to end(). `width` bytes are reserved for
   * its length: 1 for most messages, more for one known to be long (pass end() the same width).
   */
  begin(field: number, width = 1): number {
    this.tag(field, WIRE_LEN);
    this.ensure(width);
    const at = this.pos;
    this.pos += width;
    return at;
  }

  /** Ends the nested message started at `at` with `width` bytes reserved, writing its length. */
  end(at: number, width = 1): void {
    const len = this.pos - at - width;
    if (width === 1 && len < 0x80) {
      this.buf[at] = len;
      return;
    }
    if (width === 2 && len >= 0x80 && len < 0x4000) {
      this.buf[at] = (len & 0x7f) | 0x80;
      this.buf[at + 1] = len >>> 7;
      return;
    }
    this.close(at, width);
  }

  /**
   * Writes the length of the message whose content follows `width` bytes reserved at `at`,
   * moving the content when its minimal varint is narrower or wider than the room.
   */
  private close(at: number, width: number): void {
    const start = at + width;
    const len = this.pos - start;
    const size = varintSize(len);
    if (size !== width) {
      if (size > width) this.ensure(size - width);
      this.buf.copyWithin(at + size, start, this.pos);
      this.pos += size - width;
    }
    writeVarint(this.buf, at, len);
  }
}

declare global {
  interface Buffer {
    /** Node's own UTF-8 write without Buffer#write's argument normalization. */
    utf8Write(s: string, offset: number): number;
  }
}

export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/** Writes a varint into `buf` at `pos`; returns the position after it. */
export function writeVarint(buf: Uint8Array, pos: number, n: number): number {
  while (n >= 0x80) {
    buf[pos++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[pos++] = n;
  return pos;
}

/** Reads a varint (up to 2^53) from `buf` at `pos`; returns [value, next position], or [-1, pos] when cut. */
export function readVarint(buf: Uint8Array, pos: number): [number, number] {
  let value = 0;
  let mul = 1;
  for (let i = 0; i < 8 && pos < buf.length; i++) {
    const b = buf[pos++]!;
    value += (b & 0x7f) * mul;
    if (b < 0x80) return [value, pos];
    mul *= 0x80;
  }
  return [-1, pos];
}
