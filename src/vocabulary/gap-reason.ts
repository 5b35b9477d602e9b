// Why events are missing: the reason a gap record carries (`browser.telemetry.gap.reason`), from the
// stream that finds the gap to the record that reports it. docs/mapping.md lists what each means.

export const GAP_REASONS = [
  'evicted_before_follow',
  'evicted',
  'malformed',
  'frame_too_large',
  'service_restart',
  'tail_unknown',
  'mapping_error',
] as const;
export type GapReason = (typeof GAP_REASONS)[number];
