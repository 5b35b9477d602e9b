// monitor_screenshot policies. A real viewport PNG is 100–729 KiB (130–972 KB of base64), far
// larger than any other record, so it gets a record size limit of its own (screenshots.
// max_record_bytes, 240 KiB by default: what Loki and CloudWatch Logs take as one line; a larger
// PNG is dropped whole, never cut). Besides `inline` the PNG can be dropped or written to a
// directory and referenced from the record. In every case the record says what happened (browser.screenshot.disposition) and
// how large the PNG was (browser.screenshot.bytes).
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ATTR } from './attributes.js';
import type { AttributeValue, JsonValue, SessionContext } from '../vocabulary/log-record.js';
import type { ScreenshotOptions } from '../config/mapping-section.js';
import type { Emit } from '../vocabulary/facts.js';

/** Room left for attributes when deciding whether an inline PNG fits the screenshot record limit. */
const INLINE_RESERVE = 4096;

/** Where the `directory` policy puts PNGs; returns the reference stored in the record. */
export interface ScreenshotSink {
  write(sessionId: string, epoch: number, seq: number, png: Buffer): string;
}

/**
 * Session ids become one path segment that is the same on a case-insensitive file system: an upper
 * case letter is written `^` + its lower case (`Ab` → `^ab`, `ab` stays `ab`, so two ids differing
 * in case never share a directory), anything else but [a-z0-9_-] is %-escaped, so `..` and `/`
 * cannot escape.
 */
export function safeSegment(id: string): string {
  return id.replace(/[^a-z0-9_-]/g, (c) =>
    c >= 'A' && c <= 'Z' ? `^${c.toLowerCase()}` : `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

// O_NOFOLLOW: a link planted where a PNG goes (or a session directory replaced by one) must not make
// the bridge write through it into a file it can reach.
const OPEN_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/** `<directory>/<session>/<seq>.png` (`e<epoch>-<seq>.png` once the epoch is above 0), written synchronously, 0600. */
export function createDirectorySink(directory: string): ScreenshotSink {
  const root = resolve(directory);
  return {
    write(sessionId, epoch, seq, png) {
      const dir = join(root, safeSegment(sessionId));
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (lstatSync(dir).isSymbolicLink()) throw new Error(`${dir} is a symbolic link`);
      const path = join(dir, epoch === 0 ? `${seq}.png` : `e${epoch}-${seq}.png`);
      const fd = openSync(path, OPEN_FLAGS, 0o600);
      try {
        for (let off = 0; off < png.length;) off += writeSync(fd, png, off);
      } finally {
        closeSync(fd);
      }
      return path;
    },
  };
}

/** Decoded size of base64 text without decoding it. */
export function base64Bytes(text: string): number {
  let pad = 0;
  if (text.endsWith('==')) pad = 2;
  else if (text.endsWith('=')) pad = 1;
  return Math.max(0, Math.floor((text.length * 3) / 4) - pad);
}

export interface ScreenshotHandler {
  /** The body to export for a monitor_screenshot body; sets the screenshot attributes. */
  apply(
    body: { [key: string]: JsonValue },
    seq: number,
    ctx: SessionContext,
    attrs: Record<string, AttributeValue>,
  ): { [key: string]: JsonValue };
}

function withoutPng(body: { [key: string]: JsonValue }): { [key: string]: JsonValue } {
  const { png: _png, ...rest } = body;
  return rest;
}

export function createScreenshotHandler(
  options: ScreenshotOptions,
  /** The size limit of a record carrying an inline PNG (config/mapping-section.ts screenshotRecordBytes). */
  maxRecordBytes: number,
  emit: Emit,
  sink: ScreenshotSink | undefined,
): ScreenshotHandler {
  const target = options.policy === 'directory' ? (sink ?? createDirectorySink(options.directory ?? '.')) : undefined;
  return {
    apply(body, seq, ctx, attrs) {
      const png = body.png;
      if (typeof png !== 'string') return body;
      attrs[ATTR.screenshotBytes] = base64Bytes(png);
      if (options.policy === 'inline') {
        if (png.length <= maxRecordBytes - INLINE_RESERVE) {
          attrs[ATTR.screenshotDisposition] = 'inline';
          return body;
        }
        // Cutting base64 would leave a broken image: drop it whole instead, and count it.
        emit({ f: 'record_oversized', type: 'monitor_screenshot', action: 'screenshot_dropped', count: 1 });
        attrs[ATTR.screenshotDisposition] = 'oversized';
        return withoutPng(body);
      }
      if (target === undefined) {
        attrs[ATTR.screenshotDisposition] = 'dropped';
        return withoutPng(body);
      }
      try {
        const bytes = Buffer.from(png, 'base64');
        attrs[ATTR.screenshotPath] = target.write(ctx.sessionId, ctx.epoch, seq, bytes);
        attrs[ATTR.screenshotDisposition] = 'file';
        emit({ f: 'screenshot_written', count: 1 });
      } catch {
        // Disk full or unwritable: the event still goes out, without its picture (never a crash).
        attrs[ATTR.screenshotDisposition] = 'write_failed';
        emit({ f: 'screenshot_failed', count: 1 });
      }
      return withoutPng(body);
    },
  };
}
