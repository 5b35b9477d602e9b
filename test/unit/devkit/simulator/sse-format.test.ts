import { describe, expect, it } from 'vitest';
import { defaultFaults } from '../../../../src/devkit/simulator/faults.js';
import {
  applyTextFaults,
  bulkFrame,
  formatFrame,
  frameData,
  keepaliveFrame,
} from '../../../../src/devkit/simulator/sse-format.js';

const json = JSON.stringify({
  seq: 12,
  event: { ts: 1, type: 't', category: 'c', source: {}, data: { s: 'a\nb "q" 🚀', n: [1, 2] } },
});

describe('SSE frame text', () => {
  it('default frame: id line, one data line, blank line, no event field', () => {
    const f = formatFrame(12, json);
    expect(f).toBe(`id: 12\ndata: ${json}\n\n`);
    expect(frameData(f)).toBe(json);
  });

  it.each([
    { name: 'small seq and ts', seq: 1, ts: 0, tail: ',"type":"t","category":"c","source":{}}' },
    {
      name: 'large seq and a 16-digit ts',
      seq: 123_456_789,
      ts: 1_795_000_000_123_456,
      tail: ',"type":"console_log","category":"console","source":{"kind":"cdp","metadata":{}},"data":{"text":"x"}}',
    },
    {
      name: 'multi-byte characters in the tail',
      seq: 42,
      ts: 7,
      tail: ',"type":"t","category":"c","source":{},"data":{"s":"a\\nb \\"q\\" 🚀 ünï"}}',
    },
  ])('bulkFrame ($name): the bytes of the default frame of {seq, event}', ({ seq, ts, tail }) => {
    const event = JSON.parse('{"ts":' + ts + tail) as object;
    const frame = bulkFrame(seq, ts, [Buffer.from(tail)]);
    // The same bytes from the tail in parts (a screenshot's: before the base64, the base64, after).
    const bytes = Buffer.from(tail);
    const third = Math.floor(bytes.length / 3);
    const parts = [bytes.subarray(0, third), bytes.subarray(third, 2 * third), bytes.subarray(2 * third)];
    expect(bulkFrame(seq, ts, parts).equals(frame)).toBe(true);
    expect(frame.toString()).toBe(formatFrame(seq, JSON.stringify({ seq, event })));
    expect(frame.equals(Buffer.from(formatFrame(seq, JSON.stringify({ seq, event }))))).toBe(true);
  });

  it('keepalive is a bare comment frame, as the real service writes it', () => {
    expect(keepaliveFrame({ crlf: false, crOnly: false })).toBe(':\n\n');
    expect(keepaliveFrame({ crlf: true, crOnly: false })).toBe(':\r\n\r\n');
    expect(keepaliveFrame({ crlf: false, crOnly: true })).toBe(':\r\r');
  });

  it('crlf and splitData: lines rejoined with \\n give the same JSON value', () => {
    const f = applyTextFaults(formatFrame(12, json), { ...defaultFaults(), crlf: true, splitData: true });
    expect(f.endsWith('\r\n\r\n')).toBe(true);
    const lines = f.split('\r\n');
    expect(lines[0]).toBe('id: 12');
    const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(6));
    expect(data.length).toBeGreaterThan(3);
    expect(JSON.parse(data.join('\n'))).toEqual(JSON.parse(json));
  });

  it('splitData leaves data that is not JSON on one line', () => {
    const f = applyTextFaults(formatFrame(3, '{"seq":3,'), { ...defaultFaults(), splitData: true });
    expect(f).toBe('id: 3\ndata: {"seq":3,\n\n');
  });
});
