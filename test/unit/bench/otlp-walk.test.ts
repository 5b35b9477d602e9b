// The benchmark sink's minimal walk of OTLP logs requests, against bytes encoded by protobufjs from
// the shipped .proto files (the same schema the receiver decodes with).
import { describe, expect, it } from 'vitest';
import { OtlpWalkError, walkJsonRequest, walkProtobufRequest } from '../../../bench/otlp-walk.js';
import { otlpSchema } from '../../../src/devkit/receiver/otlp-schema.js';

const T = '1763900000123456789'; // above 2^53, as every real time_unix_nano is

function record(time: string, attrs: Array<[string, unknown]>): Record<string, unknown> {
  return {
    timeUnixNano: time,
    observedTimeUnixNano: '1763900000999000000',
    severityNumber: 9,
    severityText: 'INFO',
    eventName: 'browser.console_log',
    body: { kvlistValue: { values: [{ key: 'text', value: { stringValue: 'log.record.uid' } }] } },
    attributes: attrs.map(([key, value]) => ({ key, value })),
  };
}

const uid = (s: string): [string, unknown] => ['log.record.uid', { stringValue: s }];

function request(resources: Array<Array<Array<Record<string, unknown>>>>): Record<string, unknown> {
  return {
    resourceLogs: resources.map((scopes) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'b' } }] },
      scopeLogs: scopes.map((logRecords) => ({ scope: { name: 's', version: '1' }, logRecords })),
    })),
  };
}

function walkBoth(req: Record<string, unknown>): {
  protobuf: Array<[number, string | undefined]>;
  json: Array<[number, string | undefined]>;
  count: number;
} {
  const type = otlpSchema().exportLogsRequest;
  const bytes = Buffer.from(type.encode(type.fromObject(req)).finish());
  const protobuf: Array<[number, string | undefined]> = [];
  const count = walkProtobufRequest(bytes, (t, u) => protobuf.push([t, u]));
  const json: Array<[number, string | undefined]> = [];
  walkJsonRequest(JSON.parse(JSON.stringify(req)), (t, u) => json.push([t, u]));
  return { protobuf, json, count };
}

describe('walking an ExportLogsServiceRequest', () => {
  const cases: Array<{ name: string; req: Record<string, unknown>; want: Array<[number, string | undefined]> }> = [
    { name: 'empty request', req: {}, want: [] },
    { name: 'one record', req: request([[[record(T, [uid('s1:1')])]]]), want: [[Number(T), 's1:1']] },
    {
      name: 'records across resources and scopes, in order',
      req: request([
        [[record(T, [uid('a:1')]), record(T, [uid('a:2')])], [record(T, [uid('b:7')])]],
        [[record(T, [uid('c:3')])]],
      ]),
      want: [
        [Number(T), 'a:1'],
        [Number(T), 'a:2'],
        [Number(T), 'b:7'],
        [Number(T), 'c:3'],
      ],
    },
    {
      name: 'uid after other attributes; a body mentioning the key is not an attribute',
      req: request([
        [
          [
            record(T, [
              ['browser.session.id', { stringValue: 'x' }],
              ['browser.telemetry.seq', { intValue: '5' }],
              uid('x:5'),
            ]),
          ],
        ],
      ]),
      want: [[Number(T), 'x:5']],
    },
    {
      name: 'no uid attribute',
      req: request([[[record(T, [['other', { stringValue: 'x:1' }]])]]]),
      want: [[Number(T), undefined]],
    },
    {
      name: 'uid that is not a string',
      req: request([[[record(T, [['log.record.uid', { intValue: '3' }]])]]]),
      want: [[Number(T), undefined]],
    },
    {
      name: 'time 0 and a small time',
      req: request([[[record('0', [uid('z:1')]), record('4294967297', [uid('z:2')])]]]),
      want: [
        [0, 'z:1'],
        [4294967297, 'z:2'],
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = walkBoth(c.req);
      expect(got.protobuf).toEqual(c.want);
      expect(got.json).toEqual(c.want);
      expect(got.count).toBe(c.want.length);
    });
  }

  it('time_unix_nano is read to within a microsecond of the exact value', () => {
    const [[t]] = walkBoth(request([[[record(T, [])]]])).protobuf as [[number, undefined]];
    expect(Math.abs(t - Number(BigInt(T)))).toBeLessThan(1000);
    expect(Math.floor(t / 1000)).toBe(1763900000123456);
  });

  it('a truncated request is an OtlpWalkError, not a silent short count', () => {
    const type = otlpSchema().exportLogsRequest;
    const bytes = Buffer.from(type.encode(type.fromObject(request([[[record(T, [uid('s:1')])]]]))).finish());
    for (const cut of [bytes.length - 1, bytes.length - 9, 3]) {
      expect(() => walkProtobufRequest(bytes.subarray(0, cut), () => {}), `cut at ${cut}`).toThrow(OtlpWalkError);
    }
  });
});
