// Record-level behaviour: source encoding, uid with epochs, truncated flag, body format, data absent
// or null, deep nesting.
import { describe, expect, it } from 'vitest';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { rebuildEnvelope } from '../../helpers/rebuild-envelope.js';
import { parseEnvelope, type Envelope } from '../../../src/upstream/envelope.js';
import { CTX, TS, envelopeOf } from './helpers.js';

const mapper = createMapper(defaultMappingOptions);
const map = (env: Envelope, ctx = CTX) => {
  const r = mapper.map(env, ctx, TS);
  if (r === null) throw new Error('filtered');
  return r;
};

describe('source attributes', () => {
  it('scalars as attributes, non-scalars as JSON text listed for decoding', () => {
    const env = envelopeOf('page_crashed', 'page', { target_id: 't', target_type: 'page', url: 'about:blank' });
    env.event.source = {
      kind: 'cdp',
      event: 'Inspector.targetCrashed',
      metadata: {
        cdp_session_id: 'S1',
        target_id: 'T1',
        attempt: 2,
        ok: true,
        ids: [1, 2],
        nested: { a: null },
        none: null,
      },
    };
    const r = map(env);
    expect(r.attributes).toMatchObject({
      'browser.event.source.kind': 'cdp',
      'browser.event.source.event': 'Inspector.targetCrashed',
      'browser.event.source.metadata.cdp_session_id': 'S1',
      'browser.event.source.metadata.target_id': 'T1',
      'browser.event.source.metadata.attempt': 2,
      'browser.event.source.metadata.ok': true,
      'browser.event.source.metadata.ids': '[1,2]',
      'browser.event.source.metadata.nested': '{"a":null}',
      'browser.event.source.metadata.none': 'null',
      'browser.event.source.metadata_json_keys': ['ids', 'nested', 'none'],
    });
    expect(r.attributes['browser.event.source.extra']).toBeUndefined();
    expect(rebuildEnvelope(r)).toEqual(env);
  });

  it('metadata names stay right past the bound of their cache (more distinct keys than it keeps)', () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 1500; i++) {
        const env = envelopeOf('page_crashed', 'page', { target_id: 't', target_type: 'page', url: 'about:blank' });
        env.event.source = { kind: 'cdp', metadata: { [`k${i}`]: i } };
        expect(map(env).attributes[`browser.event.source.metadata.k${i}`]).toBe(i);
      }
    }
  });

  it('anything the attributes cannot carry goes to source.extra', () => {
    const env = envelopeOf('cdp_connect', 'connection', { connection_id: 'c' });
    env.event.source = { kind: 7, metadata: {}, region: 'eu' } as unknown as Envelope['event']['source'];
    const r = map(env);
    expect(JSON.parse(r.attributes['browser.event.source.extra'] as string)).toEqual({
      kind: 7,
      metadata: {},
      region: 'eu',
    });
    expect(rebuildEnvelope(r)).toEqual(env);
  });
});

describe('uid, truncated, data', () => {
  it('uid carries the epoch once it is above 0', () => {
    expect(map(envelopeOf('page_load', 'page', {}, 42)).attributes['log.record.uid']).toBe('s-1:42');
    expect(map(envelopeOf('page_load', 'page', {}, 42), { ...CTX, epoch: 3 }).attributes['log.record.uid']).toBe(
      's-1:e3:42',
    );
  });

  it('browser.event.truncated only when true', () => {
    const env = envelopeOf('console_log', 'console', { text: 'x...[truncated]' });
    env.event.truncated = true;
    expect(map(env).attributes['browser.event.truncated']).toBe(true);
    env.event.truncated = false;
    expect(map(env).attributes['browser.event.truncated']).toBeUndefined();
  });

  it('absent data → no body; null data → null body', () => {
    expect(map(envelopeOf('network_idle', 'network')).body).toBeUndefined();
    const env = envelopeOf('network_idle', 'network');
    (env.event as { data: unknown }).data = null;
    expect(map(env).body).toBeNull();
    expect(rebuildEnvelope(map(env))).toEqual(env);
  });

  it('time is ts in microseconds, untouched (the exporter multiplies exactly)', () => {
    const env = envelopeOf('page_load', 'page', {});
    env.event.ts = 9_007_199_254_740_991;
    expect(map(env).tsMicros).toBe(9_007_199_254_740_991);
  });

  it('subtrees nested deeper than 30 levels become their JSON text', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 60; i++) deep = { d: deep };
    const r = map(envelopeOf('future_thing', 'x', { deep }));
    let node = r.body as Record<string, unknown>;
    let depth = 0;
    while (typeof node === 'object' && node !== null) {
      node = (node.deep ?? node.d) as Record<string, unknown>;
      depth++;
    }
    expect(typeof node).toBe('string');
    expect(depth).toBeLessThanOrEqual(30);
    expect(JSON.parse(node as unknown as string)).toBeTypeOf('object');
  });

  it('a hostile frame nested 200 000 levels deep maps without throwing', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    const parsed = parseEnvelope(
      `{"seq":1,"event":{"ts":1,"type":"x","category":"y","source":{"metadata":{"a":${deep}}},"data":{"d":${deep}}}}`,
    );
    if (!parsed.ok) throw new Error(parsed.reason);
    const r = map(parsed.envelope);
    expect(() => JSON.stringify(r)).not.toThrow();
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThanOrEqual(defaultMappingOptions.maxRecordBytes);
  });
});

describe('body format json', () => {
  it('the same redacted, normalized body as JSON text', () => {
    const json = createMapper({ ...defaultMappingOptions, bodyFormat: 'json' });
    const r = json.map(
      envelopeOf('interaction_click', 'interaction', { x: 1, true: 2, url: 'https://u:p@h.example/' }),
      CTX,
      TS,
    );
    expect(r?.body).toBe('{"x":1,"y":2,"url":"https://REDACTED:REDACTED@h.example/"}');
    expect(r?.attributes['url.full']).toBe('https://REDACTED:REDACTED@h.example/');
  });
  it('leaves absent data absent', () => {
    const json = createMapper({ ...defaultMappingOptions, bodyFormat: 'json' });
    expect(json.map(envelopeOf('network_idle', 'network'), CTX, TS)?.body).toBeUndefined();
  });
});
