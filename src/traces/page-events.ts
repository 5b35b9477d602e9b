// A page event that changes only its own document's span: load and DOMContentLoaded, the LCP and
// layout shifts (web-vitals.ts), console errors as exception events, interactions. Navigation, which
// also moves the frame's current document, is the builder's (span-builder.ts).
import { isRecord } from '../util/guards.js';
import type { AttributeValue, BridgeLogRecord } from '../vocabulary/log-record.js';
import { num, str } from './event-fields.js';
import { addEvent, type DocState } from './span-shapes.js';
import { addShift } from './web-vitals.js';

const EXCEPTION_ATTRS = ['exception.type', 'exception.message', 'exception.stacktrace'] as const;
const INTERACTIONS = new Set(['interaction_click', 'interaction_key', 'interaction_scroll_settled']);

/** Applies a page event of `type` to its open document; other types leave it as it is. */
export function addPageEvent(
  doc: DocState,
  type: string,
  ts: number,
  attrs: Readonly<Record<string, AttributeValue>>,
  record: BridgeLogRecord | null,
): void {
  switch (type) {
    case 'page_load':
      doc.loadMicros = ts;
      addEvent(doc, { name: 'browser.page.load', tsMicros: ts, attributes: {} });
      return;
    case 'page_dom_content_loaded':
      addEvent(doc, { name: 'browser.page.dom_content_loaded', tsMicros: ts, attributes: {} });
      return;
    case 'page_lcp': {
      const value = num(attrs['browser.page.lcp.value']);
      if (value !== undefined) doc.lcp = { value, tsMicros: ts };
      return;
    }
    case 'page_layout_shift': {
      const value = num(attrs['browser.page.layout_shift.value']);
      const recent = attrs['browser.page.layout_shift.had_recent_input'] === true;
      if (value === undefined) return;
      addShift(doc.cls, ts, value, recent);
      if (!recent) doc.clsLastMicros = ts;
      addEvent(doc, {
        name: 'browser.page.layout_shift',
        tsMicros: ts,
        attributes: {
          'browser.page.layout_shift.value': value,
          'browser.page.layout_shift.had_recent_input': recent,
        },
      });
      return;
    }
    case 'console_error': {
      doc.errors++;
      const attributes: Record<string, AttributeValue> = {};
      for (const name of EXCEPTION_ATTRS) if (attrs[name] !== undefined) attributes[name] = attrs[name];
      if (attributes['exception.type'] === undefined && attributes['exception.message'] === undefined) {
        const body = record?.body;
        const text = isRecord(body) ? str(body.text) : undefined;
        attributes['exception.type'] = 'console.error';
        if (text !== undefined) attributes['exception.message'] = text;
      }
      addEvent(doc, { name: 'exception', tsMicros: ts, attributes });
      return;
    }
    default:
      if (INTERACTIONS.has(type)) addEvent(doc, { name: `browser.${type}`, tsMicros: ts, attributes: {} });
  }
}
