// Which 2xx answers are an OTLP collector's: empty, or an ExportLogsServiceResponse. Anything else
// (an HTML page from a catch-all route, a proxy's "OK") is what a wrong endpoint path answers, and
// must not pass silently as an acknowledgement.
import { describe, expect, it } from 'vitest';
import { encodeExportResponse } from '../../../src/devkit/receiver/response.js';
import { isOtlpAnswer, rejectedWithin } from '../../../src/wire/partial-success.js';

const PB = 'application/x-protobuf';
const JSON_TYPE = 'application/json';
const html = Buffer.from('<!doctype html><html><head><title>Grafana</title></head><body>…</body></html>');

describe('isOtlpAnswer', () => {
  it.each<[string, Buffer, string, boolean]>([
    ['empty protobuf (full success)', Buffer.from(encodeExportResponse('protobuf').body), PB, true],
    ['empty without a content type', Buffer.alloc(0), '', true],
    ['partial success, protobuf', Buffer.from(encodeExportResponse('protobuf', 2, 'two rejected').body), PB, true],
    ['partial success, message only', Buffer.from(encodeExportResponse('protobuf', 0, 'note').body), PB, true],
    ['{} (full success, JSON)', Buffer.from(encodeExportResponse('json').body), JSON_TYPE, true],
    [
      'partial success, JSON',
      Buffer.from(encodeExportResponse('json', 3, 'm').body),
      'application/json; charset=utf-8',
      true,
    ],
    [
      'an unknown field beside partial_success (a newer collector)',
      Buffer.from([0x0a, 0x02, 0x08, 0x01, 0x10, 0x07]),
      PB,
      true,
    ],
    ['an HTML page', html, 'text/html; charset=utf-8', false],
    ['an HTML page labelled as protobuf', html, PB, false],
    ['an HTML page without a content type', html, '', false],
    ['plain "OK"', Buffer.from('OK'), 'text/plain', false],
    ['"OK" with no content type', Buffer.from('OK'), '', false],
    ['a JSON array', Buffer.from('[]'), JSON_TYPE, false],
    ['JSON that does not parse', Buffer.from('{"partialSuccess":'), JSON_TYPE, false],
    ['a JSON object labelled as protobuf', Buffer.from('{}'), PB, false],
    ['a length past the end', Buffer.from([0x0a, 0x09, 0x08]), PB, false],
    ['a varint cut short', Buffer.from([0x08, 0xff]), PB, false],
    ['partial_success that is not a message', Buffer.from([0x08, 0x01]), PB, false],
    ['error_message that is not UTF-8', Buffer.from([0x0a, 0x03, 0x12, 0x01, 0xff]), PB, false],
  ])('%s → %s', (_name, body, type, expected) => {
    expect(isOtlpAnswer(body, type)).toBe(expected);
  });

  it('a body read only in part is not taken for an answer', () => {
    expect(isOtlpAnswer(Buffer.alloc(0), PB, true)).toBe(false);
  });
});

describe('rejectedWithin', () => {
  it.each([
    [200, 3, 3],
    [200, 0, 0],
    [200, 1_000_000, 200],
    [200, -5, 0],
    [0, 4, 0],
  ])('of %i sent, a count of %i rejected is %i', (sent, rejected, want) => {
    expect(rejectedWithin(sent, rejected)).toBe(want);
  });
});
