// A session's appends with traces on: every event passes the span state's source, and a session
// that stops or ends appends a checkpoint-only record at its last position whose state is captured
// whatever the interval, so that its checkpoint can reach the end of what it read.
import { describe, expect, it } from 'vitest';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import { SessionRecords } from '../../../src/session/session-records.js';
import { spanTapFactory } from '../../../src/session/span-tap.js';
import type { RecordToAppend } from '../../../src/store/pending-segments.js';
import { createRecordEncoder } from '../../../src/wire/encode-record.js';
import { PAGE_LOAD, SESSION, envelopes } from '../traces/script.js';

interface Appended {
  seq: number;
  record: boolean;
  state: 'captured' | 'uncaptured' | 'none';
}

function records(traces: boolean) {
  const clock = { t: 0 };
  const appended: Appended[] = [];
  // The spool seals every append at once: its source is asked right away, as a seal would.
  const spool = {
    append: (a: RecordToAppend) => {
      const state = a.spans === undefined ? 'none' : a.spans() ? 'captured' : 'uncaptured';
      appended.push({ seq: a.seq, record: a.record !== null, state });
    },
  };
  const spans = traces
    ? spanTapFactory({ offer: () => undefined }, { captureEveryMs: 1000, now: () => clock.t })(SESSION)
    : undefined;
  const r = new SessionRecords(
    { sessionId: SESSION, attributes: {}, epoch: 0 },
    { mapper: createMapper(defaultMappingOptions), encode: createRecordEncoder(), spool, spans, emit: () => undefined },
    { checkpoint: 7, epoch: 0 },
  );
  return { r, appended, clock };
}

describe('session records', () => {
  it('traces on: a stop captures the state at the last position, whatever the interval', () => {
    const { r, appended, clock } = records(true);
    const envs = envelopes(PAGE_LOAD);
    for (const env of envs) {
      clock.t += 10;
      r.event(env, undefined, 0);
    }
    expect(appended[0]!.state).toBe('captured');
    expect(appended.slice(1).every((a) => a.state === 'uncaptured')).toBe(true);
    r.capture();
    expect(appended.at(-1)).toEqual({ seq: envs.length, record: false, state: 'captured' });
  });

  it('traces off, or nothing appended yet: a stop appends nothing', () => {
    const off = records(false);
    off.r.event(envelopes(PAGE_LOAD)[0]!, undefined, 0);
    off.r.capture();
    expect(off.appended).toEqual([{ seq: 1, record: true, state: 'none' }]);
    const idle = records(true);
    idle.r.capture();
    expect(idle.appended).toEqual([]);
  });

  it('traces on, an end with nothing appended: the state is written at the stored checkpoint all the same', () => {
    const idle = records(true);
    idle.r.capture(true);
    expect(idle.appended).toEqual([{ seq: 7, record: false, state: 'captured' }]);
    const off = records(false);
    off.r.capture(true);
    expect(off.appended).toEqual([]);
  });
});
