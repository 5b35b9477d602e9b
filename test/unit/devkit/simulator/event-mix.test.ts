// The heavy mix (events/mix.ts), which the benchmark's live-heavy scenario measures: 3 % of events
// small screenshots, every category, console texts of several KB, ≈1.8 KB of JSON an event or less
// (the OTLP record adds its attributes on top).
import { describe, expect, it } from 'vitest';
import { TELEMETRY_CATEGORIES, categoryOf } from '../../../../src/devkit/simulator/index.js';
import { EventFactory } from '../../../../src/devkit/simulator/events/event-factory.js';
import { HEAVY_SCREENSHOT_EVERY } from '../../../../src/devkit/simulator/events/mix.js';
import { createRng } from '../../../../src/devkit/simulator/events/rng.js';
import { CAPTURE_ALL, captureFilter } from '../../../../src/devkit/simulator/pools.js';
import type { TelemetryEvent } from '../../../../src/upstream/envelope.js';

const N = 6600;

function bulk(factory: EventFactory, n = N): Array<{ json: string; event: TelemetryEvent }> {
  return Array.from({ length: n }, () => {
    const json = factory.nextJson() as string;
    return { json, event: JSON.parse(json) as TelemetryEvent };
  });
}

describe('heavy event mix', () => {
  it('makes every 33rd event a screenshot of 20–40 KB base64, in bulk production as in next()', () => {
    const events = bulk(new EventFactory(createRng(7), 's-1', CAPTURE_ALL, 'heavy'));
    const shots = events.filter((e) => e.event.type === 'monitor_screenshot');
    expect(shots).toHaveLength(N / HEAVY_SCREENSHOT_EVERY);
    for (const s of shots) {
      const png = (s.event.data as { png: string }).png;
      expect(png.length).toBeGreaterThanOrEqual(20_000);
      expect(png.length).toBeLessThanOrEqual(40_000);
      expect(Buffer.from(png, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
    }
    const next = new EventFactory(createRng(7), 's-1', CAPTURE_ALL, 'heavy');
    const types = Array.from({ length: 2 * HEAVY_SCREENSHOT_EVERY }, () => next.next()?.type);
    expect(types.filter((t) => t === 'monitor_screenshot')).toHaveLength(2);
  });

  it('covers every category and has console texts of several KB', () => {
    const events = bulk(new EventFactory(createRng(3), 's-2', CAPTURE_ALL, 'heavy'));
    const categories = new Set(events.map((e) => e.event.category ?? categoryOf(e.event.type)));
    expect([...categories]).toEqual(expect.arrayContaining([...TELEMETRY_CATEGORIES]));
    const longConsole = events.filter(
      (e) => e.event.type === 'console_log' && Buffer.byteLength((e.event.data as { text: string }).text) >= 2000,
    );
    expect(longConsole.length).toBeGreaterThan(0);
    const avg = events.reduce((n, e) => n + Buffer.byteLength(e.json), 0) / events.length;
    expect(avg).toBeGreaterThan(1200);
    expect(avg).toBeLessThan(1800);
  });

  it('takes no screenshots when the screenshot category is not captured', () => {
    const events = bulk(new EventFactory(createRng(5), 's-3', captureFilter(undefined, ['console']), 'heavy'), 500);
    expect(events.some((e) => e.event.type === 'monitor_screenshot')).toBe(false);
  });

  it('leaves the catalogue mix (the default) as it was: no small screenshots, no lengthened console texts', () => {
    const events = bulk(new EventFactory(createRng(7), 's-1', CAPTURE_ALL), 2000);
    const sizes = events
      .filter((e) => e.event.type === 'monitor_screenshot')
      .map((e) => (e.event.data as { png: string }).png.length);
    expect(sizes.filter((n) => n >= 20_000 && n <= 40_000)).toEqual([]);
    const long = events.filter(
      (e) => e.event.type === 'console_log' && (e.event.data as { text: string }).text.startsWith('state dump:'),
    );
    expect(long).toEqual([]);
  });
});
