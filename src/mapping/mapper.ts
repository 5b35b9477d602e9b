// Event → log record (DESIGN.md "Log record contract"; docs/mapping.md is the full table).
//
// Per event, in order: filters → body (one walk: y normalization, redaction, size estimate) →
// base attributes → screenshot policy → promotions and severity from the catalogue → size limit →
// body format. Everything configurable is compiled once in createMapper; map() allocates only the
// record and what it changes (copy-on-write), and never modifies the envelope.
import type { Envelope } from '../upstream/envelope.js';
import { ATTR, baseAttributes } from './attributes.js';
import { createBodyTransformer, type WalkState } from './body-transform.js';
import { CATALOGUE_BY_TYPE, UNKNOWN_TYPE } from './catalogue.js';
import { compileFilter } from './filters.js';
import type { BridgeLogRecord, JsonValue, SessionContext } from '../vocabulary/log-record.js';
import { compileNameMatcher } from './name-matcher.js';
import { screenshotRecordBytes, type MappingOptions } from '../config/mapping-section.js';
import { createHeaderRedactor } from './redact-headers.js';
import { createUrlRedactor, identityUrlRedactor } from './redact-url.js';
import { createScreenshotHandler, type ScreenshotSink } from './screenshots.js';
import { severityText } from './severity-levels.js';
import { createSizeLimiter } from './size-limit.js';
import { noopStats, type MappingStats } from './stats.js';
import { isJsonObject } from '../util/guards.js';

export type { MappingStats, OversizeAction, RedactionKind } from './stats.js';
export type { ScreenshotSink } from './screenshots.js';

export interface Mapper {
  /** Maps one validated envelope; returns null when a filter excludes it (it still advances the checkpoint). */
  map(envelope: Envelope, ctx: SessionContext, observedMicros: number): BridgeLogRecord | null;
}

export interface MapperDeps {
  /** Counters (filtered, oversized, redacted, screenshots); no-ops when absent. */
  stats?: MappingStats;
  /** Where the `directory` screenshot policy writes; default: synchronous files under screenshots.directory. */
  screenshots?: ScreenshotSink;
}

type JsonObject = { [key: string]: JsonValue };

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});


/** Builds a mapper from validated options; all lookup tables are compiled here, once. */
export function createMapper(options: MappingOptions, deps: MapperDeps = {}): Mapper {
  const stats = deps.stats ?? noopStats;
  const r = options.redaction;
  const urls = r.enabled ? createUrlRedactor(compileNameMatcher(r.queryParams), r.urlUserinfo) : undefined;
  const secretNames = r.enabled ? compileNameMatcher(r.headers) : undefined;
  const headers = secretNames !== undefined ? createHeaderRedactor(secretNames, urls ?? identityUrlRedactor) : undefined;
  // Body keys named like a secret by either list: `password` (header list), `code`, `client_secret`.
  const bodyNames = r.enabled ? compileNameMatcher([...r.headers, ...r.queryParams]) : undefined;
  const transformer = createBodyTransformer(r, headers, urls, bodyNames);
  const filter = compileFilter(options.filters);
  const shotLimit = screenshotRecordBytes(options);
  const screenshots = createScreenshotHandler(options.screenshots, shotLimit, stats, deps.screenshots);
  const limiter = createSizeLimiter(options.maxRecordBytes);
  // A record that carries a PNG inline is held to the screenshot limit: cutting it would break the image.
  const shotLimiter = shotLimit === options.maxRecordBytes ? limiter : createSizeLimiter(shotLimit);
  const asJson = options.bodyFormat === 'json';
  // map() is synchronous, so one scratch state serves every call.
  const state: WalkState = { chars: 0, nodes: 0, headersRedacted: false, urlsRedacted: false };
  // Made once, not per event: it reads the type of the event being mapped.
  let currentType = '';
  const onSourceMasked = (): void => stats.redacted?.(currentType, 'source_metadata');

  return {
    map(envelope, ctx, observedMicros) {
      const ev = envelope.event;
      const entry = CATALOGUE_BY_TYPE.get(ev.type) ?? UNKNOWN_TYPE;
      if (filter !== undefined && !filter.accepts(ev.type, ev.category, entry.category)) {
        stats.filtered(ev.type, ev.category);
        return null;
      }

      state.chars = 0;
      state.nodes = 0;
      state.headersRedacted = false;
      state.urlsRedacted = false;
      const data = ev.data as JsonValue | undefined;
      let body: JsonValue | undefined = isJsonObject(data) ? transformer.transform(ev.type, data, state) : data;
      if (stats.redacted !== undefined) {
        if (state.headersRedacted) stats.redacted(ev.type, 'header');
        if (state.urlsRedacted) stats.redacted(ev.type, 'url');
        if (transformer.lastDropped !== undefined && isJsonObject(data)) stats.redacted(ev.type, transformer.lastDropped);
      }

      currentType = ev.type;
      const attributes = baseAttributes(envelope, ctx, secretNames, onSourceMasked, urls);
      if (ev.type === 'monitor_screenshot' && isJsonObject(body)) {
        const before = body;
        body = screenshots.apply(body, envelope.seq, ctx, attributes);
        if (body !== before && typeof before.png === 'string') state.chars -= before.png.length;
      }
      const view = isJsonObject(body) ? body : EMPTY;
      entry.promote(view, attributes);
      const severityNumber = entry.severity(ev.type, view);

      const record: BridgeLogRecord = {
        tsMicros: ev.ts,
        observedMicros,
        eventName: `browser.${ev.type}`,
        severityNumber,
        severityText: severityText(severityNumber),
        body,
        attributes,
      };
      const inlineShot = attributes[ATTR.screenshotDisposition] === 'inline';
      const actions = (inlineShot ? shotLimiter : limiter).enforce(record, state);
      for (const action of actions) stats.oversized(ev.type, action);
      if (asJson && record.body !== undefined && typeof record.body !== 'string') record.body = JSON.stringify(record.body);
      return record;
    },
  };
}
