import { describe, expect, it } from 'vitest';
import { printable } from '../../../src/util/printable.js';

describe('printable', () => {
  it.each([
    ['plain text', 'plain text'],
    ['a\u001b[31mred', 'a\ufffd[31mred'],
    ['bell\u0007', 'bell\ufffd'],
    ['csi\u009b1m', 'csi\ufffd1m'],
    ['del\u007f', 'del\ufffd'],
    ['nul\u0000', 'nul\ufffd'],
    ['line\r\nnext', 'line⏎next'],
    ['cr\roverwrite', 'cr\ufffdoverwrite'],
    ['tab\there', 'tab here'],
    ['bidi \u202eevil\u2066', 'bidi \ufffdevil\ufffd'],
    ['unicode ok: é ✓ 漢', 'unicode ok: é ✓ 漢'],
  ])('%j → %j', (input, expected) => {
    expect(printable(input)).toBe(expected);
  });
});
