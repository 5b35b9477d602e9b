// Scripted event sequences for the span builder's tests: envelopes as the service sends them,
// mapped by the real mapper so spans see the same redacted attributes records carry.
import type { Envelope } from '../../../src/upstream/envelope.js';
import { createMapper } from '../../../src/mapping/mapper.js';
import { defaultMappingOptions } from '../../../src/config/mapping-section.js';
import type { BridgeLogRecord } from '../../../src/vocabulary/log-record.js';
import { EVENT_CATEGORY } from '../../../src/vocabulary/event-types.js';

export const SESSION = 'sess-1';
export const T0 = 1_764_000_000_000_000;
const mapper = createMapper(defaultMappingOptions);

/** One step: the event type, milliseconds after T0, and its data. */
export type Step = [type: string, ms: number, data: Record<string, unknown>];

export function envelopes(steps: readonly Step[]): Envelope[] {
  return steps.map(([type, ms, data], i) => ({
    seq: i + 1,
    event: {
      ts: T0 + ms * 1000,
      type,
      category: EVENT_CATEGORY.get(type) ?? 'page',
      source: { kind: 'cdp', event: 'X' },
      data,
    },
  }));
}

export function mapped(env: Envelope): BridgeLogRecord | null {
  return mapper.map(env, { sessionId: SESSION, attributes: {}, epoch: 0 }, env.event.ts);
}

/** A page's context members (BrowserEventContext). */
export const ctx = (loader: string, frame = 'F1'): Record<string, unknown> => ({
  frame_id: frame,
  loader_id: loader,
  url: 'https://shop.example.com/cart?token=abc',
});

export const req = (loader: string, id: string, url: string, extra: Record<string, unknown> = {}) => ({
  ...ctx(loader),
  request_id: id,
  url,
  method: 'GET',
  resource_type: 'Script',
  ...extra,
});

export const doc = (loader: string, url: string, frame = 'F1') => ({
  ...ctx(loader, frame),
  request_id: loader,
  url,
  method: 'GET',
  resource_type: 'Document',
});

export const nav = (loader: string, url: string, frame = 'F1', extra: Record<string, unknown> = {}) => ({
  frame_id: frame,
  loader_id: loader,
  url,
  target_id: 'T1',
  target_type: 'page',
  ...extra,
});

/** A page load with one script, a 404 image, a console error, LCP and two layout shifts. */
export const PAGE_LOAD: Step[] = [
  ['network_request', 0, doc('L1', 'https://shop.example.com/cart?token=abc')],
  ['network_response', 120, { ...doc('L1', 'https://shop.example.com/cart?token=abc'), status: 200 }],
  ['page_navigation', 130, nav('L1', 'https://shop.example.com/cart?token=abc')],
  ['network_request', 140, req('L1', '9.1', 'https://shop.example.com/app.js')],
  ['network_request', 141, req('L1', '9.2', 'https://shop.example.com/logo.png', { resource_type: 'Image' })],
  ['network_response', 200, { ...req('L1', '9.1', 'https://shop.example.com/app.js'), status: 200 }],
  ['network_response', 210, { ...req('L1', '9.2', 'https://shop.example.com/logo.png'), status: 404 }],
  [
    'console_error',
    250,
    {
      ...ctx('L1'),
      text: 'Uncaught TypeError: x is undefined',
      line: 3,
      column: 7,
      source_url: 'https://shop.example.com/app.js',
    },
  ],
  ['page_dom_content_loaded', 260, ctx('L1')],
  ['page_load', 400, ctx('L1')],
  ['page_lcp', 420, { ...ctx('L1'), lcp_details: { render_time: 380, load_time: 0, size: 5000 } }],
  ['page_layout_shift', 500, { ...ctx('L1'), layout_shift_details: { value: 0.05, had_recent_input: false } }],
  ['page_layout_shift', 900, { ...ctx('L1'), layout_shift_details: { value: 0.04, had_recent_input: false } }],
  ['interaction_click', 1000, { ...ctx('L1'), x: 1, y: 2 }],
  ['page_layout_shift', 1100, { ...ctx('L1'), layout_shift_details: { value: 0.5, had_recent_input: true } }],
];
