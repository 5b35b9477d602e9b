import { describe, expect, it } from 'vitest';
import type { ReceivedLogRecord } from '../../../../src/devkit/receiver/decode.js';
import type { ReceivedRequest } from '../../../../src/devkit/receiver/receiver.js';
import { describeReceiver } from '../../../../src/devkit/receiver/receiver-summary.js';

const record = (eventName: string): ReceivedLogRecord => ({
  resource: {},
  scope: { name: '' },
  timeUnixNano: 0n,
  observedTimeUnixNano: 0n,
  severityNumber: 0,
  severityText: '',
  eventName,
  body: undefined,
  attributes: {},
});
const request = (status: number): ReceivedRequest => ({
  at: 0,
  contentType: '',
  bytes: 0,
  records: 0,
  rejected: 0,
  headers: {},
  status,
});

describe('describeReceiver', () => {
  it('counts records, requests by status and records by event name', () => {
    expect(describeReceiver([record('a'), record('a'), record('')], [request(200), request(503), request(503)])).toBe(
      '3 record(s) accepted from 3 request(s) (status 200 ×1, 503 ×2); event names: a ×2, (none) ×1',
    );
  });

  it('says plainly that nothing arrived', () => {
    expect(describeReceiver([], [])).toBe('0 record(s) accepted from 0 request(s)');
  });

  it('keeps the list of event names short', () => {
    const records = Array.from({ length: 10 }, (_, i) => record(`e${i}`));
    expect(describeReceiver(records, [])).toMatch(/e7 ×1, … 2 more$/);
  });
});
