// Mapping cases, page_* and interaction_*: page lifecycle, navigation, layout and LCP measurements,
// clicks, keys, scrolls.
import { type MappingCase, INFO, ERROR, PAGE, PAGE_ATTRS, ctx, c } from './kit.js';

export const PAGE_CASES: MappingCase[] = [
  c('page_dom_content_loaded', 'with cdp_timestamp', {
    category: 'page',
    data: { ...ctx, cdp_timestamp: 1234.5 },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_load', 'with cdp_timestamp', {
    category: 'page',
    data: { ...ctx, cdp_timestamp: 1235.25 },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_layout_shift', 'shift', {
    category: 'page',
    data: {
      ...ctx,
      duration: 0,
      layout_shift_details: { had_recent_input: false, value: 0.1375 },
      source_frame_id: 'F1',
      time: 812.4,
    },
    severity: INFO,
    attributes: {
      ...PAGE_ATTRS,
      'browser.page.layout_shift.value': 0.1375,
      'browser.page.layout_shift.had_recent_input': false,
    },
  }),
  c('page_lcp', 'same-origin image', {
    category: 'page',
    data: {
      ...ctx,
      lcp_details: {
        element_id: 'hero',
        load_time: 900.5,
        node_id: 12,
        render_time: 1020.25,
        size: 48000,
        url: 'https://cdn.example/hero.png?token=t',
      },
      source_frame_id: 'F1',
      time: 1020.25,
    },
    severity: INFO,
    attributes: {
      ...PAGE_ATTRS,
      'browser.page.lcp.value': 1020.25,
      'browser.page.lcp.render_time': 1020.25,
      'browser.page.lcp.load_time': 900.5,
      'browser.page.lcp.size': 48000,
    },
  }),
  c('page_lcp', 'cross-origin image without timing header', {
    category: 'page',
    data: { lcp_details: { load_time: 700.5, render_time: 0, size: 10 }, time: 700.5 },
    severity: INFO,
    attributes: { 'browser.page.lcp.value': 700.5 },
  }),
  c('page_layout_settled', 'context only', {
    category: 'page',
    data: { ...ctx },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_crashed', 'renderer crash', {
    category: 'page',
    data: { target_id: 'T1', target_type: 'page', url: PAGE },
    severity: ERROR,
    attributes: PAGE_ATTRS,
  }),
  c('interaction_click', 'y sent as `true`', {
    category: 'interaction',
    data: { ...ctx, selector: 'button#pay', tag: 'BUTTON', text: 'Pay', x: 10, true: 20 },
    severity: INFO,
    attributes: PAGE_ATTRS,
    body: { ...ctx, selector: 'button#pay', tag: 'BUTTON', text: 'Pay', x: 10, y: 20 },
  }),
  c('interaction_click', 'y sent as `y`', {
    category: 'interaction',
    data: { x: 1, y: 2 },
    severity: INFO,
    body: { x: 1, y: 2 },
  }),
  c('interaction_key', 'named key', {
    category: 'interaction',
    data: { ...ctx, key: 'Enter', selector: 'input', tag: 'INPUT' },
    severity: INFO,
    attributes: PAGE_ATTRS,
    body: { ...ctx, key: 'Enter', selector: 'input', tag: 'INPUT' },
  }),
  c('interaction_key', 'typed character', {
    category: 'interaction',
    data: { key: 'p', selector: 'input#password', tag: 'INPUT' },
    severity: INFO,
    body: { key: 'REDACTED', selector: 'input#password', tag: 'INPUT' },
  }),
  c('interaction_scroll_settled', 'scroll', {
    category: 'interaction',
    data: { ...ctx, from_x: 0, from_y: 0, to_x: 0, to_y: 900, target_selector: 'html' },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  // Beyond the written table: the shapes the service's source shows (docs/service-api.md "Event types and categories").
  c('page_navigation', 'top-level navigation', {
    category: 'page',
    data: { session_id: 'S1', target_id: 'T1', target_type: 'page', url: PAGE, frame_id: 'F1', loader_id: 'L2' },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_navigation_settled', 'context', {
    category: 'page',
    data: { ...ctx, nav_seq: 3 },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
  c('page_tab_opened', 'new tab', {
    category: 'page',
    data: { target_id: 'T2', target_type: 'page', url: PAGE, opener_id: 'T1', title: 'Checkout' },
    severity: INFO,
    attributes: PAGE_ATTRS,
  }),
];
