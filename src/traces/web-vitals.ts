// Largest Contentful Paint and Cumulative Layout Shift from the service's page_lcp and
// page_layout_shift events, as web.dev defines them:
// - LCP is the last candidate the page reported (a later, larger element replaces an earlier one);
// - CLS is the largest "session window" of shifts: a window gathers shifts less than 1 s after the
//   previous one and at most 5 s after its first; shifts within 500 ms of user input
//   (`had_recent_input`) do not count.
// Ratings use web.dev's thresholds (LCP 2.5 s / 4 s, CLS 0.1 / 0.25). The state is plain data so it
// travels inside the span builder's checkpointed state.

/** Open CLS window and the best one so far; times in Unix microseconds. */
export interface ClsState {
  windowStart: number;
  windowLast: number;
  windowSum: number;
  max: number;
  /** Counted shifts (excluding those with recent input). */
  shifts: number;
}

export const CLS_GAP_MICROS = 1_000_000;
export const CLS_WINDOW_MICROS = 5_000_000;

export function emptyCls(): ClsState {
  return { windowStart: 0, windowLast: 0, windowSum: 0, max: 0, shifts: 0 };
}

/** Adds one layout shift (in arrival order; the service reports a page's shifts in time order). */
export function addShift(s: ClsState, tsMicros: number, value: number, hadRecentInput: boolean): void {
  if (hadRecentInput || !(value > 0) || !Number.isFinite(value)) return;
  const continues =
    s.shifts > 0 && tsMicros - s.windowLast < CLS_GAP_MICROS && tsMicros - s.windowStart <= CLS_WINDOW_MICROS;
  if (continues) s.windowSum += value;
  else {
    s.windowStart = tsMicros;
    s.windowSum = value;
  }
  s.windowLast = tsMicros;
  s.shifts++;
  if (s.windowSum > s.max) s.max = s.windowSum;
}

export type Rating = 'good' | 'needs-improvement' | 'poor';

const THRESHOLDS = { lcp: [2500, 4000], cls: [0.1, 0.25] } as const;

/** web.dev's rating of a value (LCP in milliseconds, CLS unitless). */
export function rate(name: keyof typeof THRESHOLDS, value: number): Rating {
  const [good, poor] = THRESHOLDS[name];
  return value <= good ? 'good' : value <= poor ? 'needs-improvement' : 'poor';
}
