// The gap record (DESIGN.md "Delivery semantics" 3).
import { describe, expect, it } from 'vitest';
import { gapRecord } from '../../../src/mapping/gap-record.js';
import { CTX } from './helpers.js';

describe('gapRecord', () => {
  it('names the missing range, WARN, with a uid no event can have', () => {
    const r = gapRecord(CTX, 10, 14, 1_000_000, 2_000_000);
    expect(r).toEqual({
      tsMicros: 1_000_000,
      observedMicros: 2_000_000,
      eventName: 'browser.telemetry_gap',
      severityNumber: 13,
      severityText: 'WARN',
      body: 'telemetry gap: 5 events (seq 10 to 14) were not received',
      attributes: {
        'browser.pool.id': 'pool-1',
        'browser.session.id': 's-1',
        'browser.telemetry.gap.first_seq': 10,
        'browser.telemetry.gap.last_seq': 14,
        'browser.telemetry.gap.count': 5,
        'log.record.uid': 's-1:gap:10-14',
      },
    });
  });
  it('one missing event; epoch in the uid', () => {
    const r = gapRecord({ ...CTX, epoch: 2 }, 3, 3, 1, 1);
    expect(r.body).toBe('telemetry gap: event 3 was not received');
    expect(r.attributes['browser.telemetry.gap.count']).toBe(1);
    expect(r.attributes['log.record.uid']).toBe('s-1:e2:gap:3-3');
  });
});
