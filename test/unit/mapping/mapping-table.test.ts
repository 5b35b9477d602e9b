// Runs every case of cases.ts: one or more per row of docs/mapping.md.
import { describe, expect, it } from 'vitest';
import { severityText } from '../../../src/mapping/severity-levels.js';
import { TYPE_CASES, type MappingCase } from './cases.js';
import { CDP_CASES } from './cdp-cases.js';
import { CTX, TS, mapCase } from './helpers.js';

function check(k: MappingCase): void {
  const record = mapCase(k);
  expect(record.eventName).toBe(`browser.${k.type}`);
  expect(record.severityNumber).toBe(k.severity);
  expect(record.severityText).toBe(severityText(k.severity));
  expect(record.tsMicros).toBe(TS);
  expect(record.observedMicros).toBe(TS + 5);
  expect(record.attributes).toMatchObject({
    'browser.session.id': CTX.sessionId,
    'browser.telemetry.seq': 1,
    'browser.event.type': k.type,
    'browser.event.category': k.category,
    'browser.event.source.kind': 'cdp',
    'browser.event.source.event': 'Some.event',
    'log.record.uid': 's-1:1',
    'browser.pool.id': 'pool-1',
    ...k.attributes,
  });
  expect(record.attributes['browser.event.truncated']).toBeUndefined();
  for (const name of k.absent ?? []) expect(record.attributes[name], name).toBeUndefined();
  if (k.body !== undefined) expect(record.body).toEqual(k.body);
  if (k.data === undefined) expect(record.body).toBeUndefined();
}

describe('event types (docs/mapping.md "Event types")', () => {
  for (const k of TYPE_CASES) it(`${k.row}: ${k.name}`, () => check(k));
});

describe('cdp_command methods (docs/mapping.md "cdp_command methods")', () => {
  for (const k of CDP_CASES) it(k.name, () => check(k));
});

// The event context (nav_seq, target_id, target_type, session_id next to url, frame_id and
// loader_id) stays in the body on every row that carries it: no attribute takes one of its values.
describe('event context (docs/mapping.md "The event context")', () => {
  const withContext = TYPE_CASES.filter((k) => k.data?.nav_seq !== undefined);
  it('is carried by rows of every category the service stamps it on', () => {
    expect(new Set(withContext.map((k) => k.category))).toEqual(new Set(['console', 'network', 'page', 'interaction']));
  });
  for (const k of withContext)
    it(`${k.row}: ${k.name}`, () => {
      const record = mapCase(k);
      const values = Object.values(record.attributes);
      for (const v of ['T1', 'S1', 'F1', 'L1']) expect(values, v).not.toContain(v);
      expect(Object.keys(record.attributes).filter((n) => /nav_seq|target|frame|loader/.test(n))).toEqual([]);
      expect(record.body).toMatchObject({ nav_seq: 3, target_id: 'T1', target_type: 'page', session_id: 'S1' });
    });
});
