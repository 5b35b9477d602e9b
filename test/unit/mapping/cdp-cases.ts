// The mapping case of every cdp_command method (docs/mapping.md's cdp_command rows), generated from
// the method catalogue: every required and optional member sampled, the body and the promoted
// attributes expected. Beside the event types' cases (cases.ts), run by the same tests.
import type { AttributeValue, JsonValue } from '../../../src/vocabulary/log-record.js';
import { CDP_METHODS } from '../../../src/mapping/cdp-methods.js';
import { SEVERITY } from '../../../src/mapping/severity-levels.js';
import type { MappingCase } from './cases.js';

const { INFO } = SEVERITY;

/** Sample members per cdp_command method: every required and optional member, enums as `other`. */
function sampleMember(name: string): unknown {
  if (
    name.endsWith('_present') ||
    [
      'accept',
      'auto_repeat',
      'is_keypad',
      'is_system_key',
      'prevent_fling',
      'ignore_cache',
      'landscape',
      'background',
      'focus',
      'hidden',
      'new_window',
    ].includes(name)
  )
    return true;
  if (name === 'drag_mime_categories') return ['text', 'other'];
  if (
    [
      'event_type',
      'button',
      'pointer_type',
      'gesture_source_type',
      'format',
      'referrer_policy',
      'transition_type',
      'state',
      'window_state',
      'transfer_mode',
    ].includes(name)
  )
    return 'other';
  if (name === 'mode') return 'address';
  if (name === 'named_key') return 'Enter';
  if (name === 'url_scheme') return 'https';
  if (name.endsWith('_id') && !['window_id', 'field_id', 'entry_id', 'node_id', 'backend_node_id'].includes(name))
    return `${name}-1`;
  if (['force', 'scale_factor', 'scale', 'tangential_pressure'].includes(name)) return 0.5;
  return 3;
}

export const CDP_CASES: MappingCase[] = CDP_METHODS.map((m) => {
  const data: Record<string, unknown> = { method: m.method, command_id: 7, connection_id: 'C1', session_id: 'S1' };
  for (const name of [...m.required, ...m.optional]) data[name] = sampleMember(name);
  if (m.coordinates) {
    data.x = 100.5;
    data.true = 200;
  }
  const body: Record<string, unknown> = { ...data };
  if (m.coordinates) {
    delete body.true;
    body.y = 200;
  }
  const attributes: Record<string, AttributeValue> = { 'browser.cdp.method': m.method };
  if (typeof data.url_scheme === 'string') attributes['url.scheme'] = data.url_scheme;
  return {
    row: m.method,
    name: m.method,
    type: 'cdp_command',
    category: 'control',
    data,
    severity: INFO,
    attributes,
    body: body as JsonValue,
  };
});
