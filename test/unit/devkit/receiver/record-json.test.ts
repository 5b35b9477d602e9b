import { describe, expect, it } from 'vitest';
import type { ReceivedLogRecord } from '../../../../src/devkit/receiver/decode.js';
import { recordToJsonLine } from '../../../../src/devkit/receiver/record-json.js';

describe('recordToJsonLine', () => {
  it('writes bigints as decimal strings and bytes as base64, on one line', () => {
    const record: ReceivedLogRecord = {
      resource: { 'service.name': 'b' },
      scope: { name: 's' },
      timeUnixNano: 1732100000123456000n,
      observedTimeUnixNano: 0n,
      severityNumber: 9,
      severityText: 'INFO',
      eventName: 'e',
      body: { big: 2n ** 60n, raw: new Uint8Array([0, 255]), text: 'a\nb' },
      attributes: {},
    };
    const line = recordToJsonLine(record);
    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toStrictEqual({
      resource: { 'service.name': 'b' },
      scope: { name: 's' },
      timeUnixNano: '1732100000123456000',
      observedTimeUnixNano: '0',
      severityNumber: 9,
      severityText: 'INFO',
      eventName: 'e',
      body: { big: '1152921504606846976', raw: 'AP8=', text: 'a\nb' },
      attributes: {},
    });
  });
});
