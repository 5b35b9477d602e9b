// How many terminal columns a string takes, and cutting and padding by that: `top` and `tail` align
// columns and cut lines to the screen, and String#length counts UTF-16 units, so a CJK character
// (two columns, one unit), an emoji (two columns, two units, or many joined by ZWJ) or a combining
// accent (no column, one unit) would overflow or misalign a row, and a cut could split a surrogate
// pair. The unit here is the grapheme cluster (Intl.Segmenter), as terminals draw them:
//   - a cluster with an emoji presentation (a pictograph, or one followed by VS16 U+FE0F) takes 2;
//   - a cluster whose first code point is East Asian Wide or Fullwidth (UAX #11) takes 2;
//   - a cluster of nothing but combining marks, zero-width or control characters takes 0;
//   - anything else takes 1.
// Text reaching here has had control characters made visible already (util/printable.ts).

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F/u;
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]+$/u;

/** East Asian Wide (W) and Fullwidth (F) blocks, UAX #11, as [first, last] code points. */
const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], // Hangul Jamo initials
  [0x2e80, 0x303e], // CJK radicals, Kangxi, ideographic description, CJK symbols and punctuation
  [0x3041, 0x33ff], // Hiragana, Katakana, Bopomofo, Hangul compatibility Jamo, Kanbun, CJK compatibility
  [0x3400, 0x4dbf], // CJK Unified Ideographs Extension A
  [0x4e00, 0x9fff], // CJK Unified Ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo Extended-A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small form variants
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x1b000, 0x1b2ff], // Kana supplement and extensions
  [0x20000, 0x3fffd], // CJK Unified Ideographs Extensions B and beyond
];

function isWide(cp: number): boolean {
  for (const [first, last] of WIDE) {
    if (cp < first) return false;
    if (cp <= last) return true;
  }
  return false;
}

/** Columns one grapheme cluster takes. */
function clusterWidth(cluster: string): number {
  const cp = cluster.codePointAt(0)!;
  // Printable ASCII is nearly every character of a tail line: answer it without a regular expression.
  if (cluster.length === 1 && cp >= 0x20 && cp < 0x7f) return 1;
  if (EMOJI.test(cluster)) return 2;
  if (ZERO.test(cluster)) return 0;
  return isWide(cp) ? 2 : 1;
}

/** Terminal columns `text` takes. */
export function displayWidth(text: string): number {
  // The ASCII fast path: one column per unit.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  for (const { segment } of segmenter.segment(text)) width += clusterWidth(segment);
  return width;
}

/** `text` cut to at most `width` columns, ending in "…" when something was cut; never splits a cluster. */
export function cutToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return '';
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = clusterWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces on the right to `width` columns. */
export function padEndToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** `text` padded with spaces on the left to `width` columns. */
export function padStartToWidth(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text;
}
