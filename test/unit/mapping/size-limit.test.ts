// max_record_bytes (docs/mapping.md "Size limit"): every record fits, the steps are counted, and
// nothing throws, whatever the event.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import type { Emit } from '../../../src/vocabulary/facts.js';
import {
  defaultMappingOptions,
  MIN_MAX_RECORD_BYTES,
  type MappingOptions,
} from '../../../src/config/mapping-section.js';
import { ATTRIBUTE_OVERHEAD, cutString, NODE_OVERHEAD, RECORD_OVERHEAD } from '../../../src/mapping/size-limit.js';
import { json, text } from './arbitraries.js';
import { CTX, envelopeOf } from './helpers.js';

/** The documented measure, computed the slow way. */
function estimatedSize(r: BridgeLogRecord): number {
  let nodes = 0;
  const count = (v: unknown): void => {
    nodes++;
    if (Array.isArray(v)) v.forEach(count);
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(count);
  };
  if (r.body !== undefined) count(r.body);
  let attrs = 0;
  for (const [k, v] of Object.entries(r.attributes))
    attrs += Buffer.byteLength(k) + Buffer.byteLength(JSON.stringify(v)) + ATTRIBUTE_OVERHEAD;
  const body = r.body === undefined ? 0 : Buffer.byteLength(JSON.stringify(r.body));
  return body + nodes * NODE_OVERHEAD + attrs + RECORD_OVERHEAD;
}

function mapperWith(max: number, actions: string[] = []) {
  const emit: Emit = (f) => void (f.f === 'record_oversized' && actions.push(f.action));
  const options: MappingOptions = { ...defaultMappingOptions, maxRecordBytes: max };
  return createMapper(options, { emit });
}

describe('size limit', () => {
  it('leaves small records alone', () => {
    const actions: string[] = [];
    const r = mapperWith(65536, actions).map(envelopeOf('console_log', 'console', { text: 'hi' }), CTX, 1);
    expect(actions).toEqual([]);
    expect(r?.attributes['browser.record.truncated']).toBeUndefined();
  });

  it('cuts the longest strings first, with the service marker, and says so', () => {
    const actions: string[] = [];
    const body = 'b'.repeat(200_000);
    const r = mapperWith(65536, actions).map(
      envelopeOf('network_response', 'network', { status: 200, body, mime_type: 'text/html' }),
      CTX,
      1,
    )!;
    expect(actions).toEqual(['strings_truncated']);
    const data = r.body as Record<string, string>;
    expect(data.mime_type).toBe('text/html');
    expect(data.body?.endsWith('...[truncated]')).toBe(true);
    expect(data.body?.length).toBeGreaterThan(50_000); // uses the room it has
    expect(r.attributes['browser.record.truncated']).toBe(true);
    expect(r.attributes['browser.record.original_size']).toBeGreaterThan(200_000);
    expect(estimatedSize(r)).toBeLessThanOrEqual(65536);
  });

  it('turns a body of many small values into cut JSON text', () => {
    const actions: string[] = [];
    const r = mapperWith(8192, actions).map(
      envelopeOf('future_thing', 'x', { values: Array.from({ length: 5000 }, (_, i) => i) }),
      CTX,
      1,
    )!;
    expect(actions).toContain('body_cut');
    expect(typeof r.body).toBe('string');
    expect((r.body as string).startsWith('{"values":[0,1,2')).toBe(true);
    expect(estimatedSize(r)).toBeLessThanOrEqual(8192);
  });

  it('cuts long attributes (stack traces, metadata) and finally keeps only the contract', () => {
    const actions: string[] = [];
    const env = envelopeOf('console_error', 'console', { text: 'Uncaught Error: x' });
    env.event.source = {
      kind: 'k',
      metadata: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`key${i}`, 'v'.repeat(40)])),
    };
    const r = mapperWith(MIN_MAX_RECORD_BYTES, actions).map(env, CTX, 1)!;
    expect(actions).toContain('attributes_cut');
    expect(r.attributes['browser.session.id']).toBe(CTX.sessionId);
    expect(r.attributes['log.record.uid']).toBe('s-1:1');
    expect(estimatedSize(r)).toBeLessThanOrEqual(MIN_MAX_RECORD_BYTES);
  });

  it('counts multi-byte and escaped characters as bytes', () => {
    const r = mapperWith(16384).map(
      envelopeOf('console_log', 'console', { a: '€'.repeat(20000), b: '\u0001'.repeat(20000), c: '😀'.repeat(5000) }),
      CTX,
      1,
    )!;
    expect(estimatedSize(r)).toBeLessThanOrEqual(16384);
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(16384);
  });

  it('never splits a surrogate pair', () => {
    expect(cutString('a😀b', 2)).toBe('a...[truncated]');
    expect(cutString('ab', 2)).toBe('ab');
  });

  it('property: any event fits any allowed limit, and mapping never throws', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MIN_MAX_RECORD_BYTES, max: 32768 }),
        fc.dictionary(
          text,
          fc.oneof(
            json,
            fc.string({ minLength: 1000, maxLength: 40000, unit: 'binary' }),
            fc.array(fc.integer(), { maxLength: 3000 }),
          ),
          { maxKeys: 6 },
        ),
        fc.dictionary(text, json, { maxKeys: 40 }),
        (max, data, metadata) => {
          const env = envelopeOf('future_blob', 'x', data);
          env.event.source = { kind: 'k', metadata };
          const r = mapperWith(max).map(env, CTX, 1)!;
          expect(estimatedSize(r)).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 150 },
    );
  });
});
