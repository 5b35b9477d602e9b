// A request body is the framing and then the payloads themselves, never a copy of them: what each
// builder hands out, as chunks, and that the chunks read as the request a collector decodes.
import { describe, expect, it } from 'vitest';
import { decodeJsonLogsRequest, decodeProtobufLogsRequest } from '../../../src/devkit/receiver/decode.js';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import { bodyBytes, createRequestBuilder, joinBody } from '../../../src/wire/otlp-request.js';

const rs = { resource: { 'service.name': 'chunks' }, scope: { name: 'test', version: '1' } };
const encode = createRecordEncoder();
const record = (i: number, text = `line ${i}`): Buffer =>
  encode({
    tsMicros: 1_700_000_000_000_000 + i,
    observedMicros: 1_700_000_000_000_000 + i,
    eventName: 'browser.console_log',
    severityNumber: 9,
    severityText: 'INFO',
    body: { text },
    attributes: { 'browser.telemetry.seq': i },
  });

/** Payloads as delivery hands them over: records alone, or runs of records (one sealed segment). */
const cases: Array<[string, Buffer[], number[]]> = [
  ['no records (the empty probe)', [], []],
  ['one record', [record(1)], [1]],
  ['a segment of three records', [Buffer.concat([record(1), record(2), record(3)])], [1, 2, 3]],
  ['segments and single records mixed', [record(1), Buffer.concat([record(2), record(3)]), record(4)], [1, 2, 3, 4]],
  ['a record over 128 KiB (multi-byte lengths in the framing)', [record(1, 'x'.repeat(140_000)), record(2)], [1, 2]],
  [
    'a thousand payloads',
    Array.from({ length: 1000 }, (_, i) => record(i + 1)),
    Array.from({ length: 1000 }, (_, i) => i + 1),
  ],
];

describe('http/protobuf request body', () => {
  const builder = createRequestBuilder('http/protobuf', rs);

  it.each(cases)('%s: the framing, then the payloads themselves (not copies)', (_, payloads, seqs) => {
    const body = builder.build(payloads);
    expect(body).toHaveLength(payloads.length + 1);
    for (let i = 0; i < payloads.length; i++) expect(body[i + 1]).toBe(payloads[i]);
    const joined = joinBody(body);
    expect(bodyBytes(body)).toBe(joined.length);
    expect(decodeProtobufLogsRequest(joined).map((r) => r.attributes['browser.telemetry.seq'])).toEqual(seqs);
  });

  it('the framing alone is the empty request a collector accepts as a probe', () => {
    const [head, ...rest] = builder.build([]);
    expect(rest).toEqual([]);
    expect(decodeProtobufLogsRequest(head!)).toEqual([]);
  });
});

describe('http/json request body', () => {
  const builder = createRequestBuilder('http/json', rs);

  it.each(cases)('%s: one chunk, the transcoded records', (_, payloads, seqs) => {
    const body = builder.build(payloads);
    expect(body).toHaveLength(1);
    expect(joinBody(body)).toBe(body[0]);
    expect(decodeJsonLogsRequest(body[0]!).map((r) => r.attributes['browser.telemetry.seq'])).toEqual(seqs);
  });
});
