// Event → log record (docs/design.md "The log-record contract"; docs/mapping.md is the full table).
//
// Per event, in order: filters → body (one walk: y normalization, redaction, size estimate) →
// base attributes → screenshot policy → promotions and severity from the catalogue → size limit →
// body format. Everything configurable is compiled once in createMapper; map() allocates only the
// record and what it changes (copy-on-write), and never modifies the envelope.
import type { Envelope } from '../upstream/envelope.js';
import { ATTR, baseAttributes, type SourceMasks } from './attributes.js';
import { newWalkState, resetWalkState } from './body-transform.js';
import { CATALOGUE_BY_TYPE, UNKNOWN_TYPE } from './catalogue.js';
import { compileFilter } from './filters.js';
import type { BridgeLogRecord, JsonValue, SessionContext } from '../vocabulary/log-record.js';
import { screenshotRecordBytes, type MappingOptions } from '../config/mapping-section.js';
import { compileRedaction } from './redaction.js';
import { createScreenshotHandler, type ScreenshotSink } from './screenshots.js';
import { severityText } from './severity-levels.js';
import { createSizeLimiter } from './size-limit.js';
import { ignoreFacts, type Emit } from '../vocabulary/facts.js';
import { isJsonObject } from '../util/guards.js';

export type { OversizeAction, RedactionKind } from '../vocabulary/facts.js';
export type { ScreenshotSink } from './screenshots.js';

export interface Mapper {
  /** Maps one validated envelope; returns null when a filter excludes it (it still advances the checkpoint). */
  map(envelope: Envelope, ctx: SessionContext, observedMicros: number): BridgeLogRecord | null;
}

export interface MapperDeps {
  /** Where the mapper's facts go (redactions, oversized records, screenshot files); dropped when absent. */
  emit?: Emit;
  /** Where the `directory` screenshot policy writes; default: synchronous files under screenshots.directory. */
  screenshots?: ScreenshotSink;
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/** Builds a mapper from validated options; all lookup tables are compiled here, once. */
export function createMapper(options: MappingOptions, deps: MapperDeps = {}): Mapper {
  const emit = deps.emit ?? ignoreFacts;
  const r = options.redaction;
  const { urls, secretNames, transformer } = compileRedaction(r);
  const filter = compileFilter(options.filters);
  const shotLimit = screenshotRecordBytes(options);
  const screenshots = createScreenshotHandler(options.screenshots, shotLimit, emit, deps.screenshots);
  const limiter = createSizeLimiter(options.maxRecordBytes);
  // A record that carries a PNG inline is held to the screenshot limit: cutting it would break the image.
  const shotLimiter = shotLimit === options.maxRecordBytes ? limiter : createSizeLimiter(shotLimit);
  const asJson = options.bodyFormat === 'json';
  // map() is synchronous, so one scratch state serves every call.
  const state = newWalkState();
  // Made once, not per event: it reads the type of the event being mapped.
  let currentType = '';
  const sourceMasks: SourceMasks = { secretKeys: secretNames, urls, jwts: r.enabled && r.maskJwts };
  const onSourceMasked = (): void =>
    emit({ f: 'values_redacted', type: currentType, kind: 'source_metadata', count: 1 });

  return {
    map(envelope, ctx, observedMicros) {
      const ev = envelope.event;
      const entry = CATALOGUE_BY_TYPE.get(ev.type) ?? UNKNOWN_TYPE;
      // Filtered: the session that asked reports it (it knows whose event it was).
      if (filter !== undefined && !filter.accepts(ev.type, ev.category, entry.category)) return null;

      resetWalkState(state);
      const data = ev.data as JsonValue | undefined;
      let body: JsonValue | undefined = isJsonObject(data) ? transformer.transform(ev.type, data, state) : data;
      if (state.headersRedacted) emit({ f: 'values_redacted', type: ev.type, kind: 'header', count: 1 });
      if (state.urlsRedacted) emit({ f: 'values_redacted', type: ev.type, kind: 'url', count: 1 });
      if (state.jwtsRedacted) emit({ f: 'values_redacted', type: ev.type, kind: 'jwt', count: 1 });
      if (state.authRedacted) emit({ f: 'values_redacted', type: ev.type, kind: 'auth_credential', count: 1 });
      if (transformer.lastDropped !== undefined && isJsonObject(data))
        emit({ f: 'values_redacted', type: ev.type, kind: transformer.lastDropped, count: 1 });

      currentType = ev.type;
      const attributes = baseAttributes(envelope, ctx, sourceMasks, onSourceMasked);
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
        eventName: entry === UNKNOWN_TYPE ? `browser.${ev.type}` : entry.eventName,
        severityNumber,
        severityText: severityText(severityNumber),
        body,
        attributes,
      };
      // Only the screenshot policy sets the disposition (or a session attribute of that name): the
      // lookup of a name most records lack, on attribute objects of every shape, is not made for them.
      const inlineShot =
        (ev.type === 'monitor_screenshot' || ctx.attributes[ATTR.screenshotDisposition] !== undefined) &&
        attributes[ATTR.screenshotDisposition] === 'inline';
      const actions = (inlineShot ? shotLimiter : limiter).enforce(record, state);
      for (const action of actions) emit({ f: 'record_oversized', type: ev.type, action, count: 1 });
      if (asJson && record.body !== undefined && typeof record.body !== 'string')
        record.body = JSON.stringify(record.body);
      return record;
    },
  };
}
