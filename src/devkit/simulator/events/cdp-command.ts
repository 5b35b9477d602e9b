// cdp_command (control category): one event per browser-control command relayed by the
// remote-debugging proxy, data discriminated on `method` (docs/service-api.md "cdp_command"). Values that
// could hold secrets are already reduced to lengths, counts, flags, enums or URL schemes by the
// service, so none appear here.
import type { GenResult, GenState } from './context.js';
import { clip128, setY } from './context.js';
import type { Rng } from './rng.js';

type Members = Record<string, unknown>;

const MOUSE_BUTTON = ['none', 'left', 'middle', 'right', 'back', 'forward', 'other'];
const MOUSE_EVENT = ['mousePressed', 'mouseReleased', 'mouseMoved', 'mouseWheel'];
const KEY_EVENT = ['keyDown', 'keyUp', 'rawKeyDown', 'char'];
const TOUCH_EVENT = ['touchStart', 'touchEnd', 'touchMove', 'touchCancel'];
const DRAG_EVENT = ['dragEnter', 'dragOver', 'drop', 'dragCancel'];
const DRAG_MIME = ['text', 'image', 'audio', 'video', 'application', 'font', 'model', 'multipart', 'message', 'other'];
const GESTURE_SOURCE = ['default', 'touch', 'mouse'];
const REFERRER_POLICY = [
  'noReferrer',
  'noReferrerWhenDowngrade',
  'origin',
  'strictOriginWhenCrossOrigin',
  'unsafeUrl',
  'other',
];
const TRANSITION = ['link', 'typed', 'address_bar', 'auto_bookmark', 'reload', 'form_submit', 'generated', 'other'];
const WINDOW_STATE = ['normal', 'minimized', 'maximized', 'fullscreen'];

/** Enum value, reported as `other` now and then (values outside the pinned protocol revision). */
const e = (rng: Rng, values: readonly string[]): string => (rng.chance(0.03) ? 'other' : rng.pick(values));
const mods = (rng: Rng): number => (rng.chance(0.7) ? 0 : rng.pick([1, 2, 4, 8, 10]));
const id = (g: GenState): string => clip128(g.rng.hex(32).toUpperCase());
const node = (g: GenState): Members =>
  g.rng.chance(0.5)
    ? { backend_node_id: g.rng.int(1, 5000), node_id: g.rng.int(1, 5000) }
    : { object_id: clip128(`${g.rng.int(1e17, 9e17)}.${g.rng.int(1, 9)}.${g.rng.int(1, 99)}`) };

/** x is a number; the y coordinate goes in `y` or the written specification's literal `true` member (docs/service-api.md). */
function xy(g: GenState, m: Members): Members {
  m.x = g.rng.float(0, 1280, 2);
  setY(g, m, g.rng.float(0, 800, 2));
  return m;
}

const METHODS: Record<string, (g: GenState) => Members> = {
  'Input.dispatchMouseEvent': (g) => {
    const { rng } = g;
    return xy(g, {
      event_type: e(rng, MOUSE_EVENT),
      button: e(rng, MOUSE_BUTTON),
      buttons: rng.int(0, 3),
      click_count: rng.int(0, 2),
      delta_x: 0,
      delta_y: rng.chance(0.2) ? rng.int(-500, 500) : 0,
      force: rng.float(0, 1),
      modifiers: mods(rng),
      pointer_type: rng.pick(['mouse', 'mouse', 'pen']),
      tangential_pressure: rng.float(-1, 1),
      tilt_x: 0,
      tilt_y: 0,
      twist: rng.int(0, 359),
    });
  },
  'Input.dispatchKeyEvent': ({ rng }) => {
    const m: Members = {
      event_type: e(rng, KEY_EVENT),
      auto_repeat: rng.chance(0.05),
      command_count: rng.int(0, 1),
      is_keypad: rng.chance(0.05),
      is_system_key: false,
      location: rng.pick([0, 1, 2, 3]),
      modifiers: mods(rng),
      text_length: rng.int(0, 1),
    };
    // Only keys that command the page are named; character keys are never captured.
    if (rng.chance(0.4)) m.named_key = rng.pick(['Enter', 'Tab', 'Escape', 'Backspace', 'ArrowDown', 'PageDown']);
    return m;
  },
  'Input.insertText': ({ rng }) => ({ text_length: rng.int(1, 400) }),
  'Input.imeSetComposition': ({ rng }) => ({
    text_length: rng.int(1, 20),
    replacement_start: 0,
    replacement_end: rng.int(0, 4),
    selection_start: rng.int(0, 4),
    selection_end: rng.int(4, 8),
  }),
  'Input.dispatchTouchEvent': (g) => {
    const { rng } = g;
    return xy(g, {
      event_type: e(rng, TOUCH_EVENT),
      touch_point_count: rng.int(0, 3),
      force: rng.float(0, 1),
      modifiers: mods(rng),
      radius_x: rng.int(1, 20),
      radius_y: rng.int(1, 20),
      rotation_angle: rng.float(0, 90, 1),
      tangential_pressure: 0,
      tilt_x: rng.int(-30, 30),
      tilt_y: rng.int(-30, 30),
      twist: 0,
    });
  },
  'Input.dispatchDragEvent': (g) => {
    const { rng } = g;
    return xy(g, {
      event_type: e(rng, DRAG_EVENT),
      drag_file_count: rng.int(0, 3),
      drag_item_count: rng.int(1, 4),
      drag_mime_categories: [rng.pick(DRAG_MIME), rng.pick(DRAG_MIME)],
      drag_operations_mask: rng.pick([1, 2, 16, 19]),
      modifiers: mods(rng),
    });
  },
  'Input.cancelDragging': () => ({}),
  'Input.emulateTouchFromMouseEvent': (g) => {
    const { rng } = g;
    return xy(g, {
      event_type: e(rng, MOUSE_EVENT),
      button: e(rng, MOUSE_BUTTON),
      click_count: rng.int(0, 2),
      delta_x: 0,
      delta_y: 0,
      modifiers: mods(rng),
    });
  },
  'Input.synthesizePinchGesture': (g) =>
    xy(g, {
      gesture_source_type: e(g.rng, GESTURE_SOURCE),
      relative_speed: g.rng.int(100, 1200),
      scale_factor: g.rng.float(0.5, 3),
    }),
  'Input.synthesizeScrollGesture': (g) => {
    const { rng } = g;
    return xy(g, {
      gesture_source_type: e(rng, GESTURE_SOURCE),
      prevent_fling: rng.chance(0.8),
      repeat_count: rng.int(0, 3),
      repeat_delay_ms: 250,
      speed: rng.int(200, 3000),
      x_distance: 0,
      y_distance: rng.int(-2000, 2000),
      x_overscroll: 0,
      y_overscroll: 0,
    });
  },
  'Input.synthesizeTapGesture': (g) =>
    xy(g, { gesture_source_type: e(g.rng, GESTURE_SOURCE), duration: g.rng.int(20, 200), tap_count: g.rng.int(1, 2) }),
  'DOM.setFileInputFiles': (g) => ({ file_count: g.rng.int(0, 5), ...node(g) }),
  'DOM.focus': (g) => node(g),
  'DOM.scrollIntoViewIfNeeded': (g) => ({
    ...node(g),
    rect_x: 0,
    rect_y: 0,
    rect_width: g.rng.int(10, 600),
    rect_height: g.rng.int(10, 300),
  }),
  'Page.bringToFront': () => ({}),
  'Page.captureScreenshot': ({ rng }) => {
    const m: Members = {
      capture_beyond_viewport: rng.chance(0.2),
      format: e(rng, ['jpeg', 'png', 'webp']),
      from_surface: true,
      optimize_for_speed: rng.chance(0.5),
    };
    if (m.format === 'jpeg') m.quality = rng.int(30, 100);
    if (rng.chance(0.3))
      Object.assign(m, { clip_x: 0, clip_y: rng.int(0, 900), clip_width: 800, clip_height: 600, clip_scale: 1 });
    return m;
  },
  'Page.captureSnapshot': ({ rng }) => ({ format: e(rng, ['mhtml']) }),
  'Page.handleJavaScriptDialog': ({ rng }) =>
    rng.chance(0.5) ? { accept: true, prompt_text_length: rng.int(0, 40) } : { accept: rng.chance(0.5) },
  'Page.navigate': (g) => {
    const { rng } = g;
    return {
      frame_id: g.page.frameId,
      referrer_policy: e(rng, REFERRER_POLICY),
      referrer_present: rng.chance(0.3),
      transition_type: e(rng, TRANSITION),
      url_scheme: rng.pick(['https', 'https', 'http', 'about', 'data', 'chrome-extension']).slice(0, 32),
    };
  },
  'Page.navigateToHistoryEntry': ({ rng }) => ({ entry_id: rng.int(1, 40) }),
  'Page.reload': (g) => ({
    ignore_cache: g.rng.chance(0.3),
    loader_id: g.page.loaderId,
    script_length: g.rng.chance(0.9) ? 0 : g.rng.int(10, 900),
  }),
  'Page.printToPDF': ({ rng }) => ({
    display_header_footer: rng.chance(0.3),
    footer_template_present: rng.chance(0.2),
    header_template_present: rng.chance(0.2),
    generate_document_outline: false,
    generate_tagged_pdf: rng.chance(0.5),
    landscape: rng.chance(0.3),
    margin_top: 0.4,
    margin_bottom: 0.4,
    margin_left: 0.4,
    margin_right: 0.4,
    page_ranges_present: rng.chance(0.1),
    paper_width: 8.5,
    paper_height: 11,
    prefer_css_page_size: false,
    print_background: true,
    scale: 1,
    transfer_mode: e(rng, ['ReturnAsBase64', 'ReturnAsStream']),
  }),
  'Page.startScreencast': ({ rng }) => ({
    every_nth_frame: rng.int(1, 3),
    format: e(rng, ['jpeg', 'png']),
    max_width: 1280,
    max_height: 800,
    quality: rng.int(40, 90),
  }),
  'Page.stopScreencast': () => ({}),
  'Page.stopLoading': () => ({}),
  'Page.close': () => ({}),
  'Page.setWebLifecycleState': ({ rng }) => ({ state: e(rng, ['frozen', 'active']) }),
  'Target.activateTarget': (g) => ({ target_id: g.page.targetId }),
  'Target.closeTarget': (g) => ({ target_id: id(g) }),
  'Target.createTarget': (g) => {
    const { rng } = g;
    return {
      background: rng.chance(0.3),
      browser_context_id: id(g),
      enable_begin_frame_control: false,
      focus: true,
      for_tab: rng.chance(0.2),
      hidden: false,
      new_window: rng.chance(0.4),
      left: 0,
      top: 0,
      width: 1280,
      height: 800,
      url_scheme: rng.pick(['https', 'about']),
      window_state: e(rng, WINDOW_STATE),
    };
  },
  'Target.createBrowserContext': ({ rng }) => ({
    dispose_on_detach: rng.chance(0.5),
    proxy_bypass_list_present: rng.chance(0.2),
    proxy_server_present: rng.chance(0.3),
    universal_network_access_origin_count: rng.int(0, 2),
  }),
  'Target.disposeBrowserContext': (g) => ({ browser_context_id: id(g) }),
  'Target.openDevTools': (g) => ({
    target_id: g.page.targetId,
    panel_id: g.rng.pick(['console', 'elements', 'network']),
  }),
  'Browser.cancelDownload': (g) => ({
    download_guid: clip128(`${g.rng.hex(8)}-${g.rng.hex(4)}-${g.rng.hex(4)}-${g.rng.hex(4)}-${g.rng.hex(12)}`),
    browser_context_id: id(g),
  }),
  'Browser.close': () => ({}),
  'Browser.setWindowBounds': ({ rng }) => ({
    window_id: rng.int(1, 9),
    left: 0,
    top: 0,
    width: rng.pick([1280, 1920, 800]),
    height: rng.pick([800, 1080, 600]),
    window_state: e(rng, WINDOW_STATE),
  }),
  'Browser.setContentsSize': ({ rng }) => ({ window_id: rng.int(1, 9), width: 1280, height: rng.int(600, 1200) }),
  // Autofill mode is the one enumeration without an `other` fallback.
  'Autofill.trigger': (g) => ({
    field_id: g.rng.int(1, 9999),
    address_field_count: g.rng.int(0, 8),
    frame_id: g.page.frameId,
    mode: g.rng.pick(['card', 'address']),
  }),
};

/** Every cdp_command method of docs/service-api.md "cdp_command", in table order. */
export const CDP_METHODS: readonly string[] = Object.keys(METHODS);

/** Commands sent on the browser target carry no session_id. */
const BROWSER_LEVEL = /^(Browser\.|Target\.(createBrowserContext|disposeBrowserContext|createTarget))/;

export function cdpCommand(g: GenState, method: string): GenResult {
  const { rng } = g;
  const build = METHODS[method];
  if (!build) throw new Error(`unknown cdp_command method ${method}`);
  const data: Members = { method };
  if (rng.chance(0.95)) data.command_id = g.commandId++;
  const connectionId = g.connection?.id ?? clip128(`conn_${rng.hex(16)}`);
  data.connection_id = connectionId;
  if (!BROWSER_LEVEL.test(method)) data.session_id = clip128(g.page.cdpSessionId);
  Object.assign(data, build(g));
  if (g.connection) g.connection.messages++;
  return { data, source: { kind: 'cdp_proxy', event: method, metadata: { connection_id: connectionId } } };
}
