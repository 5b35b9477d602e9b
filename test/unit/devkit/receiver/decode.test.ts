import { describe, expect, it } from 'vitest';
import {
  OtlpDecodeError,
  decodeJsonLogsRequest,
  decodeLogsRequest,
  decodeProtobufLogsRequest,
  type OtlpFormat,
} from '../../../../src/devkit/receiver/decode.js';
import { otlpSchema } from '../../../../src/devkit/receiver/otlp-schema.js';

// Requests are written once in OTLP/JSON form and sent through both decoders: as JSON text, and as
// protobuf bytes produced by protobufjs from the same object (fromObject reads the JSON mapping).
type Json = Record<string, unknown>;

function encode(request: Json, format: OtlpFormat): Uint8Array {
  if (format === 'json') return Buffer.from(JSON.stringify(request));
  const type = otlpSchema().exportLogsRequest;
  return type.encode(type.fromObject(request)).finish();
}

function requestWith(logRecords: Json[], extra: { resource?: Json; scope?: Json } = {}): Json {
  return {
    resourceLogs: [
      {
        resource: extra.resource ?? { attributes: [] },
        scopeLogs: [{ scope: extra.scope ?? { name: 's' }, logRecords }],
      },
    ],
  };
}

function bodyOf(anyValue: Json, format: OtlpFormat): unknown {
  const records = decodeLogsRequest(encode(requestWith([{ body: anyValue }]), format), format);
  expect(records).toHaveLength(1);
  return records[0]?.body;
}

const FORMATS: OtlpFormat[] = ['protobuf', 'json'];

const ANY_VALUE_CASES: Array<[string, Json, unknown]> = [
  ['string', { stringValue: 'plain' }, 'plain'],
  ['unicode string', { stringValue: 'héllo ✓ 🚀 日本' }, 'héllo ✓ 🚀 日本'],
  ['empty string (set member, not absent)', { stringValue: '' }, ''],
  ['bool true', { boolValue: true }, true],
  ['bool false', { boolValue: false }, false],
  ['int', { intValue: '42' }, 42],
  ['negative int', { intValue: '-7' }, -7],
  ['int zero', { intValue: '0' }, 0],
  ['largest safe int stays a number', { intValue: '9007199254740991' }, 9007199254740991],
  ['int beyond 2^53 becomes bigint', { intValue: '9007199254740993' }, 9007199254740993n],
  ['int64 minimum', { intValue: '-9223372036854775808' }, -9223372036854775808n],
  ['int64 maximum', { intValue: '9223372036854775807' }, 9223372036854775807n],
  ['double', { doubleValue: 2.5 }, 2.5],
  ['integral double stays a number', { doubleValue: 3 }, 3],
  ['double infinity', { doubleValue: 'Infinity' }, Infinity],
  ['bytes', { bytesValue: 'AAEC/w==' }, new Uint8Array([0, 1, 2, 255])],
  ['empty AnyValue is null', {}, null],
  [
    'array',
    { arrayValue: { values: [{ intValue: 1 }, { stringValue: 'a' }, {}, { boolValue: false }] } },
    [1, 'a', null, false],
  ],
  ['empty array', { arrayValue: {} }, []],
  ['empty kvlist', { kvlistValue: {} }, {}],
  [
    'nested kvlist and arrays',
    {
      kvlistValue: {
        values: [
          {
            key: 'a',
            value: {
              kvlistValue: {
                values: [
                  {
                    key: 'b',
                    value: { arrayValue: { values: [{ doubleValue: 0.5 }, { kvlistValue: { values: [] } }] } },
                  },
                ],
              },
            },
          },
          { key: 'n', value: {} },
          { key: 'missing value' },
        ],
      },
    },
    { a: { b: [0.5, {}] }, n: null, 'missing value': null },
  ],
];

describe('AnyValue conversion, both encodings', () => {
  for (const format of FORMATS) {
    it.each(ANY_VALUE_CASES)(`${format}: %s`, (_name, anyValue, expected) => {
      expect(bodyOf(anyValue, format)).toStrictEqual(expected);
    });

    it(`${format}: NaN double`, () => {
      expect(bodyOf({ doubleValue: 'NaN' }, format)).toBeNaN();
    });

    it(`${format}: a "__proto__" key becomes data, not the prototype`, () => {
      const body = bodyOf(
        { kvlistValue: { values: [{ key: '__proto__', value: { stringValue: 'x' } }] } },
        format,
      ) as object;
      expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(body, '__proto__')?.value).toBe('x');
    });

    it(`${format}: a repeated key keeps the last value`, () => {
      const kv = (v: string): Json => ({ key: 'k', value: { stringValue: v } });
      expect(bodyOf({ kvlistValue: { values: [kv('first'), kv('last')] } }, format)).toStrictEqual({ k: 'last' });
    });
  }
});

describe('log record fields, both encodings', () => {
  // OTLP/JSON spells trace and span ids in hex; protobufjs's fromObject (the protobuf side) reads base64.
  const full = (format: string): Json => ({
    timeUnixNano: '1732100000123456000',
    observedTimeUnixNano: '18446744073709551615',
    severityNumber: 17,
    severityText: 'ERROR',
    eventName: 'browser.console_error',
    body: { stringValue: 'boom' },
    attributes: [
      { key: 'browser.session.id', value: { stringValue: 's-1' } },
      { key: 'browser.telemetry.seq', value: { intValue: '42' } },
      { key: 'tags', value: { arrayValue: { values: [{ stringValue: 'a' }] } } },
    ],
    droppedAttributesCount: 1,
    flags: 1,
    traceId: format === 'json' ? '00000000000000000000000000000001' : 'AAAAAAAAAAAAAAAAAAAAAQ==',
    spanId: format === 'json' ? '0000000000000001' : 'AAAAAAAAAAE=',
  });

  for (const format of FORMATS) {
    it(`${format}: every field, 64-bit timestamps exact`, () => {
      const request = requestWith([full(format)], {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bridge' } }] },
        scope: { name: 'browser-telemetry-bridge', version: '0.1.0' },
      });
      expect(decodeLogsRequest(encode(request, format), format)).toStrictEqual([
        {
          resource: { 'service.name': 'bridge' },
          scope: { name: 'browser-telemetry-bridge', version: '0.1.0' },
          timeUnixNano: 1732100000123456000n,
          observedTimeUnixNano: 18446744073709551615n,
          severityNumber: 17,
          severityText: 'ERROR',
          eventName: 'browser.console_error',
          body: 'boom',
          attributes: { 'browser.session.id': 's-1', 'browser.telemetry.seq': 42, tags: ['a'] },
          traceId: '00000000000000000000000000000001',
          spanId: '0000000000000001',
        },
      ]);
    });

    it(`${format}: absent fields take their defaults; no body is null`, () => {
      const [record] = decodeLogsRequest(
        encode({ resourceLogs: [{ scopeLogs: [{ logRecords: [{}] }] }] }, format),
        format,
      );
      expect(record).toStrictEqual({
        resource: {},
        scope: { name: '' },
        timeUnixNano: 0n,
        observedTimeUnixNano: 0n,
        severityNumber: 0,
        severityText: '',
        eventName: '',
        body: null,
        attributes: {},
      });
    });

    it(`${format}: records are flattened in request order across resources and scopes`, () => {
      const rl = (service: string, scopes: string[][]): Json => ({
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeLogs: scopes.map((names, i) => ({
          scope: { name: `scope-${i}` },
          logRecords: names.map((eventName) => ({ eventName })),
        })),
      });
      const request = { resourceLogs: [rl('one', [['a', 'b'], ['c']]), rl('two', [['d']])] };
      const records = decodeLogsRequest(encode(request, format), format);
      expect(records.map((r) => [r.resource['service.name'], r.scope.name, r.eventName])).toStrictEqual([
        ['one', 'scope-0', 'a'],
        ['one', 'scope-0', 'b'],
        ['one', 'scope-1', 'c'],
        ['two', 'scope-0', 'd'],
      ]);
    });

    it(`${format}: an empty request carries no records`, () => {
      expect(decodeLogsRequest(encode({}, format), format)).toStrictEqual([]);
    });
  }
});

describe('OTLP/JSON specifics', () => {
  const decodeOne = (record: Json): unknown => decodeJsonLogsRequest(JSON.stringify(requestWith([record])))[0];

  it.each<[string, Json, Json]>([
    ['int64 as a JSON number', { body: { intValue: 12 } }, { body: 12 }],
    ['int beyond 2^53 as a JSON number becomes bigint', { body: { intValue: 2 ** 60 } }, { body: 2n ** 60n }],
    ['timestamp as a JSON number', { timeUnixNano: 1732100000 }, { timeUnixNano: 1732100000n }],
    ['severity by enum name', { severityNumber: 'SEVERITY_NUMBER_WARN' }, { severityNumber: 13 }],
    ['double as a string', { body: { doubleValue: '1.25' } }, { body: 1.25 }],
    ['URL-safe base64 bytes', { body: { bytesValue: '-_8' } }, { body: new Uint8Array([0xfb, 0xff]) }],
    [
      'null stands for an absent field',
      { severityText: null, body: { stringValue: null } },
      { severityText: '', body: null },
    ],
    [
      'proto field names (snake_case) are accepted',
      { time_unix_nano: '5', event_name: 'e', body: { int_value: '1' } },
      { timeUnixNano: 5n, eventName: 'e', body: 1 },
    ],
  ])('%s', (_name, record, expected) => {
    expect(decodeOne(record)).toMatchObject(expected);
  });

  it('hex trace and span ids (OTLP/JSON deviates from proto3 there) do not disturb decoding', () => {
    const record = decodeOne({
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId: 'eee19b7ec3c1b174',
      eventName: 'e',
    });
    expect(record).toMatchObject({ eventName: 'e' });
  });

  it('accepts a string body as well as bytes', () => {
    expect(decodeJsonLogsRequest('{"resourceLogs":[]}')).toStrictEqual([]);
  });
});

describe('invalid bodies', () => {
  const jsonError = (request: unknown): string => {
    try {
      decodeJsonLogsRequest(JSON.stringify(request));
    } catch (err) {
      expect(err).toBeInstanceOf(OtlpDecodeError);
      return (err as Error).message;
    }
    throw new Error('expected an OtlpDecodeError');
  };
  const recordError = (record: Json): string => jsonError(requestWith([record]));

  it.each<[string, Json, string]>([
    [
      'non-numeric timestamp',
      { timeUnixNano: 'soon' },
      'resourceLogs[0].scopeLogs[0].logRecords[0]: timeUnixNano must be an integer, got "soon"',
    ],
    ['negative timestamp', { timeUnixNano: '-1' }, 'timeUnixNano is out of the uint64 range'],
    ['timestamp beyond uint64', { timeUnixNano: '18446744073709551616' }, 'timeUnixNano is out of the uint64 range'],
    ['fractional int', { body: { intValue: 1.5 } }, 'logRecords[0].body: intValue must be an integer, got 1.5'],
    ['int beyond int64', { body: { intValue: '9223372036854775808' } }, 'intValue is out of the int64 range'],
    ['unknown severity name', { severityNumber: 'LOUD' }, 'severityNumber must be an enum number or name, got "LOUD"'],
    ['bool as a string', { body: { boolValue: 'yes' } }, 'boolValue must be a boolean'],
    ['bad base64', { body: { bytesValue: '***' } }, 'bytesValue must be base64 bytes'],
    ['attributes not an array', { attributes: {} }, 'logRecords[0].attributes: key/value list must be an array'],
    [
      'bad value deep in a body names its path',
      { body: { kvlistValue: { values: [{ key: 'a', value: { arrayValue: { values: [{ stringValue: 1 }] } } }] } } },
      'logRecords[0].body.kvlistValue[0]("a").value.arrayValue.values[0]: stringValue must be a string',
    ],
    [
      'bad attribute value names its key',
      { attributes: [{ key: 'k', value: { doubleValue: 'lots' } }] },
      'attributes[0]("k").value: doubleValue must be a number',
    ],
  ])('%s', (_name, record, message) => {
    expect(recordError(record)).toContain(message);
  });

  it('rejects a request that is not an object, and a non-array resourceLogs', () => {
    expect(jsonError([1])).toBe('request must be an object');
    expect(jsonError({ resourceLogs: 'x' })).toBe('resourceLogs must be an array');
  });

  it('rejects invalid JSON and invalid UTF-8', () => {
    expect(() => decodeJsonLogsRequest('{"resourceLogs":')).toThrow(/^invalid JSON: /);
    expect(() => decodeJsonLogsRequest(new Uint8Array([0x7b, 0xff, 0x7d]))).toThrow(OtlpDecodeError);
  });

  it('rejects bytes that are not a protobuf ExportLogsServiceRequest', () => {
    // Field 1, length-delimited, claiming 100 bytes that are not there.
    expect(() => decodeProtobufLogsRequest(new Uint8Array([0x0a, 0x64, 0x01]))).toThrow(
      /^invalid protobuf ExportLogsServiceRequest: /,
    );
    // A wire type that does not exist (7).
    expect(() => decodeProtobufLogsRequest(new Uint8Array([0x0f]))).toThrow(OtlpDecodeError);
  });

  it('skips unknown protobuf fields instead of failing', () => {
    // Field 99 (varint 1) in front of an otherwise empty request.
    expect(decodeProtobufLogsRequest(new Uint8Array([0x98, 0x06, 0x01]))).toStrictEqual([]);
  });
});
