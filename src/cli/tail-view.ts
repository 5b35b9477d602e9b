// What `tail` shows of an envelope, computed with the mapping's own rules so the terminal and the
// collector agree: the severity of the catalogue (mapping/catalogue.ts) and every mask of the
// mapping's redaction (docs/mapping.md "Redaction"): headers, URLs, typed keys, secrets inside
// bodies, the members the drop switches replace, and source metadata. `tail` shows what the
// exporter would send; `--no-redact` shows what the service sent.
import { newWalkState, resetWalkState } from '../mapping/body-transform.js';
import { CATALOGUE_BY_TYPE, UNKNOWN_TYPE } from '../mapping/catalogue.js';
import type { JsonValue } from '../vocabulary/log-record.js';
import type { RedactionOptions } from '../config/mapping-section.js';
import { compileRedaction } from '../mapping/redaction.js';
import type { Envelope } from '../upstream/envelope.js';
import { maskSource, type SourceMasks } from '../mapping/attributes.js';
import { isJsonObject } from '../util/guards.js';

type JsonObject = { [key: string]: JsonValue };

export interface EventView {
  severity: number;
  /** The event's data with secrets masked (and the `true` member read as `y`). */
  data: Record<string, unknown> | undefined;
}

export interface TailView {
  view(envelope: Envelope): EventView;
  /**
   * The envelope for `-o json`: the frame text exactly as received when nothing is masked (and it
   * is one line), otherwise the envelope re-serialized with the masks applied.
   */
  json(envelope: Envelope, frameText: string): string;
}

export function createTailView(redaction: RedactionOptions, redact: boolean): TailView {
  // The mapper's own redaction (mapping/redaction.ts), so the two cannot drift apart.
  const r: RedactionOptions = { ...redaction, enabled: redact && redaction.enabled };
  const { urls, secretNames, transformer } = compileRedaction(r);
  const sourceMasks: SourceMasks | undefined = r.enabled
    ? { secretKeys: secretNames, urls, jwts: r.maskJwts }
    : undefined;
  const state = newWalkState();

  const transform = (type: string, data: JsonObject): JsonObject => {
    resetWalkState(state);
    return transformer.transform(type, data, state);
  };

  return {
    view(envelope) {
      const ev = envelope.event;
      const raw = ev.data as JsonValue | undefined;
      const data = isJsonObject(raw) ? transform(ev.type, raw) : undefined;
      const entry = CATALOGUE_BY_TYPE.get(ev.type) ?? UNKNOWN_TYPE;
      return { severity: entry.severity(ev.type, data ?? {}), data };
    },
    json(envelope, frameText) {
      const ev = envelope.event;
      const raw = ev.data as JsonValue | undefined;
      let data: JsonValue | undefined = raw;
      if (isJsonObject(raw)) {
        const masked = transform(ev.type, raw);
        if (
          state.headersRedacted ||
          state.urlsRedacted ||
          state.jwtsRedacted ||
          transformer.lastDropped !== undefined
        ) {
          // The transformer also renames the written specification's `true` member to `y`; JSON output keeps the wire name.
          data = Object.hasOwn(raw, 'true') && !Object.hasOwn(raw, 'y') ? renameKey(masked, 'y', 'true') : masked;
        }
      }
      const source =
        sourceMasks !== undefined && isJsonObject(ev.source as JsonValue)
          ? maskSource(ev.source, sourceMasks)
          : ev.source;
      if (data !== raw || source !== ev.source) return JSON.stringify({ ...envelope, event: { ...ev, source, data } });
      // Nothing masked: the frame as received. Data split over several `data:` lines rejoins with
      // "\n": keep one envelope per line.
      return frameText.includes('\n') ? JSON.stringify(envelope) : frameText;
    },
  };
}

function renameKey(obj: JsonObject, from: string, to: string): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj))
    Object.defineProperty(out, k === from ? to : k, {
      value: obj[k],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}
