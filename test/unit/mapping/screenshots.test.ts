// monitor_screenshot policies (docs/mapping.md "Screenshots"), with a real directory.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMapper } from '../../../src/mapping/mapper.js';
import type { Emit } from '../../../src/vocabulary/facts.js';
import {
  defaultMappingOptions,
  largestRecordBytes,
  parseMappingOptions,
  type MappingOptions,
} from '../../../src/config/mapping-section.js';
import { screenshotsBase64 } from '../../../src/devkit/simulator/events/png.js';
import { createDirectorySink, safeSegment } from '../../../src/mapping/screenshots.js';
import { CTX, envelopeOf } from './helpers.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const dir = mkdtempSync(join(tmpdir(), 'bridge-shots-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const withPolicy = (screenshots: MappingOptions['screenshots'], max = 65536): MappingOptions => ({
  ...defaultMappingOptions,
  screenshots,
  maxRecordBytes: max,
});
const shot = (png: string, seq = 5) => envelopeOf('monitor_screenshot', 'screenshot', { png }, seq);

/** The record's JSON size (the body holds the base64 text as is): a lower bound of what it costs. */
const jsonSize = (r: unknown): number => Buffer.byteLength(JSON.stringify(r));

describe('screenshots of real size under the defaults', () => {
  it('real-size screenshots under the default limit go out inline, whole; larger ones are dropped whole, counted, and the record says so', () => {
    const actions: string[] = [];
    const stats: Emit = (f) => void (f.f === 'record_oversized' && actions.push(f.action));
    const mapper = createMapper(defaultMappingOptions, { emit: stats });
    const shots = screenshotsBase64();
    let inline = 0;
    for (const png of shots) {
      const env = shot(png);
      env.event.source = {
        kind: 'local_process',
        event: 'Page.loadEventFired',
        metadata: { target_id: 'T'.repeat(32), url: 'https://shop.example/checkout?step=2' },
      };
      const r = mapper.map(env, CTX, 1)!;
      expect(r.attributes['browser.record.truncated']).toBeUndefined();
      expect(r.attributes['browser.screenshot.bytes']).toBe(Buffer.from(png, 'base64').length);
      // Every record fits what Loki and CloudWatch Logs take as one line (256 KB).
      expect(jsonSize(r)).toBeLessThanOrEqual(256 * 1024);
      if (r.attributes['browser.screenshot.disposition'] === 'inline') {
        expect(r.body).toEqual({ png });
        inline++;
      } else {
        expect(r.attributes['browser.screenshot.disposition']).toBe('oversized');
        expect(r.body).toEqual({});
      }
    }
    // The simulator's set spans the service's sizes: small ones fit, the largest do not.
    expect(inline).toBeGreaterThan(0);
    expect(actions).toEqual(Array(shots.length - inline).fill('screenshot_dropped'));
  });

  it('with the limit raised to 1 MiB every real-size screenshot goes out inline, whole', () => {
    const mapper = createMapper(parseMappingOptions({ screenshots: { max_record_bytes: '1MiB' } }, 'mapping'));
    for (const png of screenshotsBase64()) {
      const r = mapper.map(shot(png), CTX, 1)!;
      expect(r.body).toEqual({ png });
      expect(r.attributes['browser.screenshot.disposition']).toBe('inline');
    }
  });

  it('the screenshot limit is for inline PNGs only: other records keep max_record_bytes', () => {
    const r = createMapper(defaultMappingOptions).map(
      envelopeOf('network_response', 'network', { status: 200, body: 'x'.repeat(200_000) }),
      CTX,
      1,
    )!;
    expect(r.attributes['browser.record.truncated']).toBe(true);
    expect(jsonSize(r)).toBeLessThanOrEqual(defaultMappingOptions.maxRecordBytes);
  });

  it('largestRecordBytes: the screenshot limit under inline, max_record_bytes otherwise', () => {
    expect(largestRecordBytes(defaultMappingOptions)).toBe(240 * 1024);
    expect(largestRecordBytes(parseMappingOptions({ screenshots: { policy: 'drop' } }, 'mapping'))).toBe(64 * 1024);
    expect(
      largestRecordBytes(
        parseMappingOptions({ max_record_bytes: 1048576, screenshots: { max_record_bytes: 65536 } }, 'mapping'),
      ),
    ).toBe(1048576);
  });
});

describe('screenshots', () => {
  it('inline keeps the PNG', () => {
    const r = createMapper(withPolicy({ policy: 'inline' })).map(shot(PNG.toString('base64')), CTX, 1)!;
    expect(r.body).toEqual({ png: PNG.toString('base64') });
    expect(r.attributes).toMatchObject({
      'browser.screenshot.disposition': 'inline',
      'browser.screenshot.bytes': PNG.length,
    });
  });

  it('inline drops a PNG too large for the record whole, and counts it', () => {
    const oversized: string[] = [];
    const stats: Emit = (f) => void (f.f === 'record_oversized' && oversized.push(f.action));
    const big = Buffer.alloc(100_000, 7).toString('base64');
    const r = createMapper(withPolicy({ policy: 'inline', maxRecordBytes: 65536 }), { emit: stats }).map(
      shot(big),
      CTX,
      1,
    )!;
    expect(r.body).toEqual({});
    expect(r.attributes).toMatchObject({
      'browser.screenshot.disposition': 'oversized',
      'browser.screenshot.bytes': 100_000,
    });
    expect(oversized).toEqual(['screenshot_dropped']);
    expect(r.attributes['browser.record.truncated']).toBeUndefined();
  });

  it('drop removes the PNG and keeps the event', () => {
    const r = createMapper(withPolicy({ policy: 'drop' })).map(shot(PNG.toString('base64')), CTX, 1)!;
    expect(r.body).toEqual({});
    expect(r.attributes).toMatchObject({
      'browser.screenshot.disposition': 'dropped',
      'browser.screenshot.bytes': PNG.length,
    });
  });

  it('directory writes <session>/<seq>.png and references it', () => {
    const written: number[] = [];
    const stats: Emit = (f) => void (f.f === 'screenshot_written' && written.push(f.count));
    const mapper = createMapper(withPolicy({ policy: 'directory', directory: dir }), { emit: stats });
    const r = mapper.map(shot(PNG.toString('base64'), 12), CTX, 1)!;
    const path = join(dir, 's-1', '12.png');
    expect(r.attributes).toMatchObject({ 'browser.screenshot.disposition': 'file', 'browser.screenshot.path': path });
    expect(readFileSync(path)).toEqual(PNG);
    expect(r.body).toEqual({});
    expect(written).toEqual([1]);
    const r2 = mapper.map(shot(PNG.toString('base64'), 12), { ...CTX, epoch: 2 }, 1)!;
    expect(r2.attributes['browser.screenshot.path']).toBe(join(dir, 's-1', 'e2-12.png'));
  });

  it('session ids cannot escape the directory', () => {
    expect(safeSegment('../../etc')).toBe('%2e%2e%2f%2e%2e%2fetc');
    const path = createDirectorySink(dir).write('../x', 0, 1, PNG);
    expect(path.startsWith(dir)).toBe(true);
  });

  it('ids differing only in letter case get different directories, also on a case-insensitive file system', () => {
    const names = ['abc', 'ABC', 'Abc', 'aBc'].map(safeSegment);
    expect(names).toEqual(['abc', '^a^b^c', '^abc', 'a^bc']);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(4);
    const sink = createDirectorySink(dir);
    expect(sink.write('Sess', 0, 1, PNG)).not.toBe(sink.write('sess', 0, 1, PNG));
  });

  it('does not follow a symbolic link planted where a PNG or a session directory goes', () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'keep');
    mkdirSync(join(dir, 'img'), { recursive: true });
    symlinkSync(victim, join(dir, 'img', '1.png'));
    expect(() => createDirectorySink(dir).write('img', 0, 1, PNG)).toThrow();
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(dir, 'linked'));
    expect(() => createDirectorySink(dir).write('linked', 0, 2, PNG)).toThrow(/symbolic link/);
    expect(existsSync(join(elsewhere, '2.png'))).toBe(false);
  });

  it('writes the PNG 0600', () => {
    const path = createDirectorySink(dir).write('m', 0, 3, PNG);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('a failed write still exports the event, counted', () => {
    const blocker = join(dir, 'file-not-dir');
    writeFileSync(blocker, 'x');
    let failed = 0;
    const stats: Emit = (f) => void (f.f === 'screenshot_failed' && failed++);
    const r = createMapper(withPolicy({ policy: 'directory', directory: blocker }), { emit: stats }).map(
      shot(PNG.toString('base64')),
      CTX,
      1,
    )!;
    expect(r.attributes['browser.screenshot.disposition']).toBe('write_failed');
    expect(r.attributes['browser.screenshot.path']).toBeUndefined();
    expect(r.body).toEqual({});
    expect(failed).toBe(1);
  });

  it('a non-string png is left alone', () => {
    const r = createMapper(withPolicy({ policy: 'drop' })).map(
      envelopeOf('monitor_screenshot', 'screenshot', { png: 5 }),
      CTX,
      1,
    )!;
    expect(r.body).toEqual({ png: 5 });
  });
});

describe('the screenshot record limit', () => {
  const text = 'x'.repeat(100 * 1024);
  const console = (ctx: typeof CTX) =>
    createMapper(defaultMappingOptions).map(envelopeOf('console_log', 'console', { text }), ctx, 1)!;

  it('holds an inline screenshot only: other records keep max_record_bytes', () => {
    expect(console(CTX).attributes['browser.record.truncated']).toBe(true);
  });

  it('also holds a record whose session attributes say inline (the disposition as the record carries it)', () => {
    const ctx = { ...CTX, attributes: { ...CTX.attributes, 'browser.screenshot.disposition': 'inline' } };
    const r = console(ctx);
    expect(r.attributes['browser.record.truncated']).toBeUndefined();
    expect((r.body as { text: string }).text).toBe(text);
  });
});
