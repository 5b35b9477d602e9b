// The envelope as it enters (upstream/envelope.ts): hostile `data:` texts, table-driven, each with
// the reason the bridge gives. Reasons never quote the payload: they reach log lines.
import { describe, expect, it } from 'vitest';
import { parseEnvelope, validateEnvelope } from '../../../src/upstream/envelope.js';

const event = { ts: 1_700_000_000_000_000, type: 'api_call', category: 'control', source: { kind: 'kernel_api' } };
const text = (seq: unknown, ev: Record<string, unknown> = event): string => JSON.stringify({ seq, event: ev });

describe('parseEnvelope', () => {
  it.each<[string, string, string]>([
    ['not JSON', '{"seq":1,', 'data is not valid JSON'],
    ['JSON but a list', '[1,2]', 'envelope is not an object'],
    ['JSON but null', 'null', 'envelope is not an object'],
    ['JSON but not an envelope', '{"hello":"world"}', 'seq is not a positive integer'],
    ['seq as a string', text('1'), 'seq is not a positive integer'],
    ['seq 0', text(0), 'seq is not a positive integer'],
    ['seq negative', text(-1), 'seq is not a positive integer'],
    ['seq fractional', text(1.5), 'seq is not a positive integer'],
    ['seq 2^53 + 1 (parses as 2^53)', '{"seq":9007199254740993,"event":{}}', 'seq is not a positive integer'],
    ['seq 1e400 (Infinity)', '{"seq":1e400,"event":{}}', 'seq is not a positive integer'],
    ['event missing', '{"seq":1}', 'event is not an object'],
    ['event a string', text(1, 'x' as unknown as Record<string, unknown>), 'event is not an object'],
    ['type empty', text(1, { ...event, type: '' }), 'event.type is missing'],
    ['type a number', text(1, { ...event, type: 7 }), 'event.type is missing'],
    ['category missing', text(1, { ...event, category: undefined }), 'event.category is missing'],
    ['source a string', text(1, { ...event, source: 'cdp' }), 'event.source is not an object'],
    ['data a list', text(1, { ...event, data: [1] }), 'event.data is not an object'],
    ['data a string', text(1, { ...event, data: 'x' }), 'event.data is not an object'],
    ['cdp_command without data', text(1, { ...event, type: 'cdp_command' }), 'cdp_command without data'],
    ['truncated a string', text(1, { ...event, truncated: 'yes' }), 'event.truncated is not a boolean'],
  ])('%s: %s → refused', (_name, data, reason) => {
    expect(parseEnvelope(data)).toEqual({ ok: false, reason });
  });

  it.each<[string, string]>([
    ['the smallest envelope', text(1)],
    ['data null, as the service sends a cut envelope', text(1, { ...event, data: null, truncated: true })],
    ['ts 0 and the largest safe seq', text(Number.MAX_SAFE_INTEGER, { ...event, ts: 0 })],
    ['unknown members kept', text(1, { ...event, future: { x: 1 } })],
  ])('%s is taken', (_name, data) => {
    expect(parseEnvelope(data).ok).toBe(true);
  });

  it.each<[string, unknown]>([
    ['negative', -1],
    ['a date string', '2026-01-01T00:00:00Z'],
    ['beyond 2^53', 1e300],
    ['absent', undefined],
  ])('a ts %s is no reason to refuse the event: it is read (event-time.ts) and noted', (_name, ts) => {
    const r = parseEnvelope(text(1, { ...event, ts }));
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.envelope.tsNote?.readAs).toBeDefined();
  });

  it('a ts in microseconds is left as it is, without a note', () => {
    const r = parseEnvelope(text(1));
    expect(r).toEqual({ ok: true, envelope: { seq: 1, event } });
  });

  it('a ts refused for another reason is left as it came', () => {
    const value = { seq: 1, event: { ...event, ts: 5, type: '' } };
    expect(validateEnvelope(value).ok).toBe(false);
    expect(value.event.ts).toBe(5);
  });

  it('a reason never quotes the frame', () => {
    const secret = 'sk-live-0123456789';
    const r = parseEnvelope(text(1, { ...event, type: '', data: { token: secret } }));
    expect(JSON.stringify(r)).not.toContain(secret);
  });
});
