import { describe, expect, it } from 'vitest';
import { otlpSchema } from '../../../../src/devkit/receiver/otlp-schema.js';
import { encodeExportResponse, encodeStatus, encodeText } from '../../../../src/devkit/receiver/response.js';

const text = (body: Uint8Array): string => Buffer.from(body).toString('utf8');

describe('export responses', () => {
  it('full success is an empty message: no bytes in protobuf, {} in JSON', () => {
    const protobuf = encodeExportResponse('protobuf');
    expect(protobuf.contentType).toBe('application/x-protobuf');
    expect(protobuf.body.byteLength).toBe(0);
    const json = encodeExportResponse('json');
    expect(json.contentType).toBe('application/json');
    expect(text(json.body)).toBe('{}');
  });

  it('partial success round-trips through the protobuf schema', () => {
    const { body } = encodeExportResponse('protobuf', 2, 'two rejected');
    const type = otlpSchema().exportLogsResponse;
    const decoded = type.toObject(type.decode(body), { longs: Number });
    expect(decoded).toStrictEqual({ partialSuccess: { rejectedLogRecords: 2, errorMessage: 'two rejected' } });
  });

  it('partial success in JSON writes int64 as a string (proto3 JSON mapping)', () => {
    const { body } = encodeExportResponse('json', 3, 'm');
    expect(JSON.parse(text(body))).toStrictEqual({ partialSuccess: { rejectedLogRecords: '3', errorMessage: 'm' } });
  });
});

describe('failure responses', () => {
  it('google.rpc.Status in protobuf carries the gRPC code for the HTTP status', () => {
    const { contentType, body } = encodeStatus('protobuf', 503, 'down');
    expect(contentType).toBe('application/x-protobuf');
    const type = otlpSchema().status;
    expect(type.toObject(type.decode(body))).toStrictEqual({ code: 14, message: 'down' });
  });

  it.each([
    [400, 3],
    [413, 8],
    [429, 8],
    [500, 13],
    [504, 4],
    [418, 2],
  ])('JSON status for HTTP %i has code %i', (httpStatus, code) => {
    expect(JSON.parse(text(encodeStatus('json', httpStatus, 'x').body))).toStrictEqual({ code, message: 'x' });
  });

  it('plain text for requests without a known encoding', () => {
    const { contentType, body } = encodeText('not found');
    expect(contentType).toBe('text/plain; charset=utf-8');
    expect(text(body)).toBe('not found\n');
  });
});
