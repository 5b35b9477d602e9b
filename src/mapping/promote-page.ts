// Promotions for page performance events: values people chart and filter on, as numbers.
// Context members (frame_id, loader_id, nav_seq, …) stay in the body.
import { ATTR } from './attributes.js';
import type { AttributeValue } from '../vocabulary/log-record.js';
import { promoteUrl } from './promote-http.js';
import { isRecord } from '../util/guards.js';

type Attrs = Record<string, AttributeValue>;
type Data = Record<string, unknown>;

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** page_layout_shift: the shift's score (unitless) and whether user input preceded it (such shifts do not count toward CLS). */
export function promoteLayoutShift(data: Data, attrs: Attrs): void {
  promoteUrl(data, attrs);
  const d = data.layout_shift_details;
  if (!isRecord(d)) return;
  if (isNumber(d.value)) attrs[ATTR.layoutShiftValue] = d.value;
  if (typeof d.had_recent_input === 'boolean') attrs[ATTR.layoutShiftHadRecentInput] = d.had_recent_input;
}

/**
 * page_lcp: render and load time (milliseconds from the page's time origin, as the service sends
 * them), element size (square pixels), and the LCP value itself in milliseconds — render_time, or
 * load_time when render_time is 0 (cross-origin images without Timing-Allow-Origin, per docs/service-api.md),
 * or `time` when neither is given.
 */
export function promoteLcp(data: Data, attrs: Attrs): void {
  promoteUrl(data, attrs);
  const d = isRecord(data.lcp_details) ? data.lcp_details : {};
  if (isNumber(d.render_time)) attrs[ATTR.lcpRenderTime] = d.render_time;
  if (isNumber(d.load_time)) attrs[ATTR.lcpLoadTime] = d.load_time;
  if (isNumber(d.size)) attrs[ATTR.lcpSize] = d.size;
  const value =
    isNumber(d.render_time) && d.render_time > 0 ? d.render_time : isNumber(d.load_time) ? d.load_time : data.time;
  if (isNumber(value)) attrs[ATTR.lcpValue] = value;
}
