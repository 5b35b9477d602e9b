// The gap record (docs/design.md "Delivery semantics"; docs/mapping.md "Gap record").
import { describe, expect, it } from 'vitest';
import { gapRecord } from '../../../src/mapping/gap-record.js';
import { CTX } from './helpers.js';

describe('gapRecord', () => {
  it('names the missing range and why, WARN, with a uid no event can have', () => {
    const r = gapRecord(CTX, 10, 14, 1_000_000, 2_000_000, 'evicted');
    expect(r).toEqual({
      tsMicros: 1_000_000,
      observedMicros: 2_000_000,
      eventName: 'browser.telemetry_gap',
      severityNumber: 13,
      severityText: 'WARN',
      body: 'telemetry gap: 5 events (seq 10 to 14) were not received (evicted)',
      attributes: {
        'browser.pool.id': 'pool-1',
        'browser.session.id': 's-1',
        'browser.telemetry.gap.first_seq': 10,
        'browser.telemetry.gap.last_seq': 14,
        'browser.telemetry.gap.count': 5,
        'browser.telemetry.gap.reason': 'evicted',
        'log.record.uid': 's-1:gap:10-14',
      },
    });
  });

  it('one missing event; epoch in the uid', () => {
    const r = gapRecord({ ...CTX, epoch: 2 }, 3, 3, 1, 1, 'malformed');
    expect(r.body).toBe('telemetry gap: event 3 was not received (malformed)');
    expect(r.attributes['browser.telemetry.gap.count']).toBe(1);
    expect(r.attributes['log.record.uid']).toBe('s-1:e2:gap:3-3');
  });

  const severities: Array<[Parameters<typeof gapRecord>[5], string]> = [
    ['evicted_before_follow', 'INFO'],
    ['evicted', 'WARN'],
    ['malformed', 'WARN'],
    ['frame_too_large', 'WARN'],
    ['service_restart', 'WARN'],
    ['tail_unknown', 'WARN'],
    ['mapping_error', 'WARN'],
  ];
  for (const [reason, severity] of severities) {
    it(`reason ${reason} is ${severity}`, () => {
      const r = gapRecord(CTX, 1, 2, 1, 1, reason);
      expect([r.severityText, r.attributes['browser.telemetry.gap.reason']]).toEqual([severity, reason]);
    });
  }

  it('an unknown tail has an open range: first seq only, no last or count', () => {
    const r = gapRecord(CTX, 41, undefined, 5, 6, 'tail_unknown');
    expect(r.attributes['browser.telemetry.gap.first_seq']).toBe(41);
    expect(r.attributes).not.toHaveProperty('browser.telemetry.gap.last_seq');
    expect(r.attributes).not.toHaveProperty('browser.telemetry.gap.count');
    expect(r.attributes['log.record.uid']).toBe('s-1:gap:41-');
    expect(r.body).toBe(
      'telemetry gap: the session ended unseen; events after seq 40 may have been lost (tail_unknown)',
    );
  });
});
