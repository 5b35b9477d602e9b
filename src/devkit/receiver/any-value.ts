// OTLP AnyValue / KeyValue lists → plain JavaScript, the shape tests compare against:
//   string → string, bool → boolean, int → number (bigint beyond ±2^53), double → number,
//   bytes → Uint8Array, array → array, kvlist → plain object, empty AnyValue → null.
// int and double stay distinguishable only by value (3 vs 3.5): the same mapping the exporter applies
// in the other direction (an integral JS number is sent as int_value).
import {
  OtlpDecodeError,
  asBytes,
  asDouble,
  asInt64,
  asList,
  asObject,
  asString,
  field,
  rethrowAt,
} from './otlp-value.js';

/** Converts one AnyValue (absent → null). */
export function anyValueToJs(wire: unknown): unknown {
  if (wire === undefined || wire === null) return null;
  const value = asObject(wire, 'AnyValue');
  // At most one member is set (a oneof). Protobuf decoding guarantees that; a hand-written JSON body
  // that sets several gets the first one in this order rather than an error.
  let member = field(value, 'stringValue', 'string_value');
  if (member !== undefined) return asString(member, 'stringValue');
  member = field(value, 'boolValue', 'bool_value');
  if (member !== undefined) {
    if (typeof member !== 'boolean') throw new OtlpDecodeError('boolValue must be a boolean');
    return member;
  }
  member = field(value, 'intValue', 'int_value');
  if (member !== undefined) return asInt64(member, 'intValue');
  member = field(value, 'doubleValue', 'double_value');
  if (member !== undefined) return asDouble(member, 'doubleValue');
  member = field(value, 'kvlistValue', 'kvlist_value');
  if (member !== undefined) {
    try {
      return keyValuesToObject(field(asObject(member, 'kvlistValue'), 'values'));
    } catch (err) {
      rethrowAt(err, 'kvlistValue');
    }
  }
  member = field(value, 'arrayValue', 'array_value');
  if (member !== undefined) {
    try {
      return arrayValueToJs(member);
    } catch (err) {
      rethrowAt(err, 'arrayValue');
    }
  }
  member = field(value, 'bytesValue', 'bytes_value');
  if (member !== undefined) return asBytes(member, 'bytesValue');
  return null;
}

function arrayValueToJs(wire: unknown): unknown[] {
  const values = asList(field(asObject(wire, 'arrayValue'), 'values'), 'values');
  const out = new Array<unknown>(values.length);
  for (let i = 0; i < values.length; i++) {
    try {
      out[i] = anyValueToJs(values[i]);
    } catch (err) {
      rethrowAt(err, `values[${i}]`);
    }
  }
  return out;
}

/** Converts a repeated KeyValue (attributes, kvlist values) into a plain object; a repeated key keeps the last value. */
export function keyValuesToObject(wire: unknown): Record<string, unknown> {
  const pairs = asList(wire, 'key/value list');
  const out: Record<string, unknown> = {};
  for (let i = 0; i < pairs.length; i++) {
    const pair = asObject(pairs[i], `[${i}]`);
    const key = asString(field(pair, 'key'), `[${i}].key`);
    let value: unknown;
    try {
      value = anyValueToJs(field(pair, 'value'));
    } catch (err) {
      rethrowAt(err, `[${i}](${JSON.stringify(key)}).value`);
    }
    // defineProperty, not assignment: a key such as "__proto__" must become data, not a prototype.
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
