import { describe, expect, it } from 'vitest';
import { printable, quotedExcerpt } from '../../../src/util/printable.js';

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

describe('quotedExcerpt', () => {
  it.each([
    ['short', 64, '"short"'],
    ['a'.repeat(70), 64, `"${'a'.repeat(64)}… (70 characters)"`],
    // The cut falls between the halves of the emoji: the whole emoji goes, never half of it.
    [`${'a'.repeat(63)}\u{1F600}bc`, 64, `"${'a'.repeat(63)}… (67 characters)"`],
    ['\u001b[2J and more text than fits', 8, '"\ufffd[2J and… (28 characters)"'],
  ])('%j, %d → %s', (text, max, expected) => {
    expect(quotedExcerpt(text, max)).toBe(expected);
    expect(quotedExcerpt(text, max)).not.toMatch(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
    );
  });
});
