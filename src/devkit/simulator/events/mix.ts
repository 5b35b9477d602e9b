// The event mixes a simulated session can produce. `catalogue` (the default) is the service's own
// cadence: screenshots only after page loads and uncaught exceptions, at most one per 2 s, of
// real-sized PNGs (up to ~1 MB of base64), and console texts of a few words. `heavy` is the heavy
// agent session the benchmark's `live-heavy` scenario measures: every 33rd event (3 %) a screenshot
// of 20–40 KB of base64 (under the inline limit, so every one travels), and console texts of
// several KB, for about 1.8 KB an event on the OTLP wire.
import type { Rng } from './rng.js';

export const EVENT_MIXES = ['catalogue', 'heavy'] as const;
export type EventMix = (typeof EVENT_MIXES)[number];

/** In the heavy mix, one event in this many is a screenshot. */
export const HEAVY_SCREENSHOT_EVERY = 33;

/** Share of the heavy mix's console_log events whose text is several KB. */
const LONG_CONSOLE_SHARE = 0.1;

let texts: readonly string[] | undefined;

/** Built once: console dumps of about 2, 3, 4.5 and 6 KB (under the service's 8 KiB cap). */
function heavyConsoleTexts(): readonly string[] {
  texts ??= [2000, 3000, 4500, 6000].map((bytes) => {
    const row = '{"id":1234,"status":"ok","items":["a","b"],"note":"größe ✓"},';
    return 'state dump: [' + row.repeat(Math.ceil(bytes / Buffer.byteLength(row))) + ']';
  });
  return texts;
}

/** A console text of several KB for a tenth of the heavy mix's console_log events; undefined: keep the generated one. */
export function heavyConsoleText(rng: Rng): string | undefined {
  return rng.chance(LONG_CONSOLE_SHARE) ? rng.pick(heavyConsoleTexts()) : undefined;
}
