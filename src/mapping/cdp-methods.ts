// The cdp_command methods (docs/service-api.md "cdp_command"), with the members each variant carries.
// The mapper treats every method alike (INFO, browser.cdp.method, y normalization, enums passed
// through unchanged); this table exists so docs/mapping.md, the tests and the generators cover each
// method by name. `required` are the bold members; `coordinates` marks variants with x and y.

export interface CdpMethod {
  method: string;
  required: readonly string[];
  optional: readonly string[];
  coordinates: boolean;
}

const m = (method: string, required: string[], optional: string[], coordinates = false): CdpMethod => ({
  method,
  required,
  optional,
  coordinates,
});
const NODE = ['backend_node_id', 'node_id', 'object_id'];

export const CDP_METHODS: readonly CdpMethod[] = [
  m(
    'Input.dispatchMouseEvent',
    ['event_type'],
    [
      'button',
      'buttons',
      'click_count',
      'delta_x',
      'delta_y',
      'force',
      'modifiers',
      'pointer_type',
      'tangential_pressure',
      'tilt_x',
      'tilt_y',
      'twist',
    ],
    true,
  ),
  m(
    'Input.dispatchKeyEvent',
    ['event_type'],
    ['auto_repeat', 'command_count', 'is_keypad', 'is_system_key', 'location', 'modifiers', 'named_key', 'text_length'],
  ),
  m('Input.insertText', ['text_length'], []),
  m(
    'Input.imeSetComposition',
    ['text_length'],
    ['replacement_start', 'replacement_end', 'selection_start', 'selection_end'],
  ),
  m(
    'Input.dispatchTouchEvent',
    ['event_type', 'touch_point_count'],
    [
      'force',
      'modifiers',
      'radius_x',
      'radius_y',
      'rotation_angle',
      'tangential_pressure',
      'tilt_x',
      'tilt_y',
      'twist',
    ],
    true,
  ),
  m(
    'Input.dispatchDragEvent',
    ['event_type'],
    ['drag_file_count', 'drag_item_count', 'drag_mime_categories', 'drag_operations_mask', 'modifiers'],
    true,
  ),
  m('Input.cancelDragging', [], []),
  m(
    'Input.emulateTouchFromMouseEvent',
    ['event_type'],
    ['button', 'click_count', 'delta_x', 'delta_y', 'modifiers'],
    true,
  ),
  m('Input.synthesizePinchGesture', [], ['gesture_source_type', 'relative_speed', 'scale_factor'], true),
  m(
    'Input.synthesizeScrollGesture',
    [],
    [
      'gesture_source_type',
      'prevent_fling',
      'repeat_count',
      'repeat_delay_ms',
      'speed',
      'x_distance',
      'y_distance',
      'x_overscroll',
      'y_overscroll',
    ],
    true,
  ),
  m('Input.synthesizeTapGesture', [], ['gesture_source_type', 'duration', 'tap_count'], true),
  m('DOM.setFileInputFiles', ['file_count'], NODE),
  m('DOM.focus', [], NODE),
  m('DOM.scrollIntoViewIfNeeded', [], [...NODE, 'rect_x', 'rect_y', 'rect_width', 'rect_height']),
  m('Page.bringToFront', [], []),
  m(
    'Page.captureScreenshot',
    [],
    [
      'capture_beyond_viewport',
      'clip_x',
      'clip_y',
      'clip_width',
      'clip_height',
      'clip_scale',
      'format',
      'from_surface',
      'optimize_for_speed',
      'quality',
    ],
  ),
  m('Page.captureSnapshot', [], ['format']),
  m('Page.handleJavaScriptDialog', ['accept'], ['prompt_text_length']),
  m('Page.navigate', [], ['frame_id', 'referrer_policy', 'referrer_present', 'transition_type', 'url_scheme']),
  m('Page.navigateToHistoryEntry', ['entry_id'], []),
  m('Page.reload', [], ['ignore_cache', 'loader_id', 'script_length']),
  m(
    'Page.printToPDF',
    [],
    [
      'display_header_footer',
      'footer_template_present',
      'header_template_present',
      'generate_document_outline',
      'generate_tagged_pdf',
      'landscape',
      'margin_top',
      'margin_bottom',
      'margin_left',
      'margin_right',
      'page_ranges_present',
      'paper_width',
      'paper_height',
      'prefer_css_page_size',
      'print_background',
      'scale',
      'transfer_mode',
    ],
  ),
  m('Page.startScreencast', [], ['every_nth_frame', 'format', 'max_width', 'max_height', 'quality']),
  m('Page.stopScreencast', [], []),
  m('Page.stopLoading', [], []),
  m('Page.close', [], []),
  m('Page.setWebLifecycleState', ['state'], []),
  m('Target.activateTarget', ['target_id'], []),
  m('Target.closeTarget', ['target_id'], []),
  m(
    'Target.createTarget',
    [],
    [
      'background',
      'browser_context_id',
      'enable_begin_frame_control',
      'focus',
      'for_tab',
      'hidden',
      'new_window',
      'left',
      'top',
      'width',
      'height',
      'url_scheme',
      'window_state',
    ],
  ),
  m(
    'Target.createBrowserContext',
    [],
    ['dispose_on_detach', 'proxy_bypass_list_present', 'proxy_server_present', 'universal_network_access_origin_count'],
  ),
  m('Target.disposeBrowserContext', ['browser_context_id'], []),
  m('Target.openDevTools', ['target_id'], ['panel_id']),
  m('Browser.cancelDownload', ['download_guid'], ['browser_context_id']),
  m('Browser.close', [], []),
  m('Browser.setWindowBounds', ['window_id'], ['left', 'top', 'width', 'height', 'window_state']),
  m('Browser.setContentsSize', ['window_id'], ['width', 'height']),
  m('Autofill.trigger', ['field_id'], ['address_field_count', 'frame_id', 'mode']),
];

/** Members every variant may carry besides `method` (docs/service-api.md "cdp_command"). */
export const CDP_COMMON_MEMBERS: readonly string[] = ['command_id', 'connection_id', 'session_id'];
