// Counters the mapper reports through; the pipeline wires them to Prometheus. Callbacks receive
// only event types, categories and fixed words — never values — so no secret can reach a metric.

/** What the size limit did to an oversized record (size-limit.ts, screenshots.ts). */
export type OversizeAction = 'strings_truncated' | 'body_cut' | 'attributes_cut' | 'screenshot_dropped';

/** What kind of value redaction masked. */
export type RedactionKind = 'header' | 'url' | 'post_data' | 'response_body' | 'api_call_code' | 'typed_key' | 'source_metadata';

export interface MappingStats {
  /** An event excluded by the configured filters (it still advances the checkpoint). */
  filtered(type: string, category: string): void;
  /** A record above max_record_bytes was shrunk. */
  oversized(type: string, action: OversizeAction): void;
  /** One or more values of this kind were masked in an event of this type (once per event and kind). */
  redacted?(type: string, kind: RedactionKind): void;
  /** A screenshot PNG was written under the screenshot directory. */
  screenshotWritten?(bytes: number): void;
  /** Writing a screenshot failed; the record carries no PNG and no path. */
  screenshotFailed?(): void;
}

export const noopStats: MappingStats = {
  filtered: () => {},
  oversized: () => {},
};
