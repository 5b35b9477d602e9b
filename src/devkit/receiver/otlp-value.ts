// Reading OTLP values out of a "wire object": either a message decoded by protobufjs or the result
// of JSON.parse on an OTLP/JSON body. Both use lowerCamelCase field names, so one set of readers
// serves both; they differ only in scalar representations, which each reader accepts side by side:
//
//   value            protobuf (protobufjs)            OTLP/JSON (proto3 JSON mapping)
//   int64 / fixed64  Long {low, high, unsigned}       decimal string, or number
//   bytes            Uint8Array (a Buffer in Node)    base64 string
//   enum             number                           number, or the value's name
//   double           number                           number, or "NaN" / "Infinity" / "-Infinity"
//   absent field     not an own property              missing key, or null
//
// Presence is tested with own properties only: protobufjs puts field defaults on the prototype, and
// an AnyValue with no own member is the empty value (null), not an empty string.

/** An OTLP message as decoded from either encoding. */
export type WireObject = Readonly<Record<string, unknown>>;

/** A request body that is not a valid OTLP logs export request; `path` locates the bad value. */
export class OtlpDecodeError extends Error {
  constructor(
    readonly reason: string,
    readonly path = '',
  ) {
    super(path === '' ? reason : `${path}: ${reason}`);
    this.name = 'OtlpDecodeError';
  }
}

/** Rethrows `err` with `segment` prepended to its path, so the message names where decoding failed. */
export function rethrowAt(err: unknown, segment: string): never {
  if (err instanceof OtlpDecodeError) {
    const joined = err.path === '' || err.path.startsWith('[') ? segment + err.path : `${segment}.${err.path}`;
    throw new OtlpDecodeError(err.reason, joined);
  }
  throw err;
}

/** A field's value, or undefined when absent; JSON may use the proto field name instead of camelCase. */
export function field(obj: WireObject, camel: string, snake?: string): unknown {
  let value = Object.hasOwn(obj, camel) ? obj[camel] : undefined;
  if (value === undefined && snake !== undefined && Object.hasOwn(obj, snake)) value = obj[snake];
  return value === null ? undefined : value;
}

export function asObject(value: unknown, what: string): WireObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) {
    throw new OtlpDecodeError(`${what} must be an object`);
  }
  return value as WireObject;
}

/** A repeated field; absent means empty. */
export function asList(value: unknown, what: string): readonly unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${what} must be an array`);
  return value;
}

export function asString(value: unknown, what: string): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new OtlpDecodeError(`${what} must be a string`);
  return value;
}

interface LongLike {
  low: number;
  high: number;
  unsigned?: boolean;
}

function isLongLike(value: unknown): value is LongLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as LongLike).low === 'number' &&
    typeof (value as LongLike).high === 'number'
  );
}

const INTEGER_TEXT = /^-?\d+$/;
const UINT64_MAX = (1n << 64n) - 1n;
const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/** Any accepted representation of a 64-bit integer, as a bigint (no range check). */
function toBigInt(value: unknown, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new OtlpDecodeError(`${what} must be an integer, got ${value}`);
    return BigInt(value);
  }
  if (typeof value === 'string') {
    if (!INTEGER_TEXT.test(value)) throw new OtlpDecodeError(`${what} must be an integer, got "${value}"`);
    return BigInt(value);
  }
  if (isLongLike(value)) {
    // protobufjs keeps both halves as signed 32-bit numbers; >>> 0 reads them as unsigned bits.
    const bits = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
    return value.unsigned === true ? bits : BigInt.asIntN(64, bits);
  }
  throw new OtlpDecodeError(`${what} must be an integer`);
}

/** An unsigned 64-bit field (fixed64 timestamps); absent means 0. */
export function asUint64(value: unknown, what: string): bigint {
  if (value === undefined) return 0n;
  const n = toBigInt(value, what);
  if (n < 0n || n > UINT64_MAX) throw new OtlpDecodeError(`${what} is out of the uint64 range`);
  return n;
}

/** A signed 64-bit value as a number when it is exact in a double, else as a bigint. */
export function asInt64(value: unknown, what: string): number | bigint {
  // Fast path: protobufjs and JSON both hand small integers over as safe numbers.
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  const n = toBigInt(value, what);
  if (n < INT64_MIN || n > INT64_MAX) throw new OtlpDecodeError(`${what} is out of the int64 range`);
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/** An enum field: its number, or (JSON) its name looked up in `names`; absent means 0. */
export function asEnum(value: unknown, names: Readonly<Record<string, number>>, what: string): number {
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string') {
    const known = names[value];
    if (known !== undefined) return known;
    if (INTEGER_TEXT.test(value)) return Number(value);
  }
  throw new OtlpDecodeError(`${what} must be an enum number or name, got ${JSON.stringify(value)}`);
}

const DOUBLE_WORDS: Readonly<Record<string, number>> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };

export function asDouble(value: unknown, what: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const word = DOUBLE_WORDS[value];
    if (word !== undefined) return word;
    // proto3 JSON also allows a number written as a string.
    const n = value.trim() === '' ? NaN : Number(value);
    if (!Number.isNaN(n)) return n;
  }
  throw new OtlpDecodeError(`${what} must be a number`);
}

// Standard and URL-safe alphabets (proto3 JSON accepts both), optional padding.
const BASE64_TEXT = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** A bytes field as a plain Uint8Array (a copy, so no Buffer pool memory is kept alive or exposed). */
export function asBytes(value: unknown, what: string): Uint8Array {
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (typeof value === 'string' && BASE64_TEXT.test(value)) return new Uint8Array(Buffer.from(value, 'base64'));
  throw new OtlpDecodeError(`${what} must be base64 bytes`);
}
