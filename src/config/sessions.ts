// Session specs from the `sessions:` list of the file and from BRIDGE_SESSIONS.
import { ConfigError } from './errors.js';
import { SESSION_ENTRY, keysOf } from './config-keys.js';
import { isRecord, onlyKeys, optScalarMap, optString } from './readers.js';
import type { SessionSpec } from './schema.js';

// Session ids go into a URL path segment and into log.record.uid; keep them to a safe alphabet.
// A segment of dots only is a dot-segment (RFC 3986 §5.2.4): a URL parser removes `.` and climbs
// out with `..`, so `/browsers/../telemetry/stream` would be asked with the key. Never an id.
const ID_RE = /^[A-Za-z0-9._~-]{1,128}$/;
const DOTS_RE = /^\.+$/;

export const SESSION_ID_RULE = 'must be 1-128 characters of letters, digits, ".", "_", "~" or "-", and not dots only';

export function validSessionId(id: string): boolean {
  return ID_RE.test(id) && !DOTS_RE.test(id);
}

/** Why `id` breaks SESSION_ID_RULE, in words that name the first offending part; undefined when it does not. */
export function sessionIdProblem(id: string): string | undefined {
  if (validSessionId(id)) return undefined;
  if (id.length === 0) return 'it is empty';
  if (id.length > 128) return `it is longer than 128 characters (${id.length})`;
  if (DOTS_RE.test(id)) return 'it is dots only, which a URL reads as a path step';
  const at = /[^A-Za-z0-9._~-]/.exec(id)!.index;
  return `it contains ${characterName(id, at)} (ids are letters, digits, ".", "_", "~" and "-")`;
}

/**
 * The character of `text` at `at` as a problem names it: quoted when it is printable ASCII, else by
 * its code point (U+202E), so that no control, bidirectional override or half of a pair reaches a
 * log line or a terminal through the words that refuse it.
 */
function characterName(text: string, at: number): string {
  const cp = text.codePointAt(at)!;
  if (cp >= 0x20 && cp < 0x7f) return `"${String.fromCodePoint(cp)}"`;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ? `a control character (${hex})` : hex;
}

/** The longest pool id or name the bridge asks the service for. */
export const MAX_POOL_REF = 256;
// `/` `\` `?` `#`: a proxy or the service's router may decode %2F or %5C and route elsewhere, and a
// literal one ends the path; control characters have no business in a name and would reach log lines.
// eslint-disable-next-line no-control-regex
const UNREQUESTABLE = /[/\\?#\u0000-\u001f\u007f-\u009f]/;

/**
 * Why a pool id or name cannot be asked for as GET /browser_pools/{ref}, or undefined when it can:
 * the one rule for the configuration, the control API and the service's own session list.
 */
export function poolRefProblem(ref: string): string | undefined {
  if (ref.length === 0) return 'it is empty';
  if (ref.length > MAX_POOL_REF) return `it is longer than ${MAX_POOL_REF} characters (${ref.length})`;
  if (DOTS_RE.test(ref)) return 'it is dots only, which a URL reads as a path step';
  const bad = UNREQUESTABLE.exec(ref);
  return bad === null ? undefined : `it contains ${characterName(ref, bad.index)}`;
}

/** A pool id or name that can be requested (poolRefProblem). */
export function validPoolRef(ref: string): boolean {
  return poolRefProblem(ref) === undefined;
}

export function parseSessions(v: unknown, key: string): SessionSpec[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw new ConfigError(key, 'must be a list of session ids or {id, pool, start, attributes} entries');
  const out: SessionSpec[] = [];
  // A set, not a search of the list per entry: 40,000 sessions took 8 s to load (and to reload).
  const seen = new Set<string>();
  v.forEach((item, i) => {
    const spec = parseSessionSpec(typeof item === 'string' ? { id: item } : item, `${key}[${i}]`);
    if (seen.has(spec.id)) throw new ConfigError(`${key}[${i}].id`, `session "${spec.id}" is listed twice`);
    seen.add(spec.id);
    out.push(spec);
  });
  return out;
}

/** One spec, from the file or from the control API's PUT body. */
export function parseSessionSpec(item: unknown, key: string): SessionSpec {
  if (!isRecord(item)) throw new ConfigError(key, 'must be a session id or a mapping with an id');
  onlyKeys(item, keysOf(SESSION_ENTRY), key);
  const id = optString(item.id, `${key}.id`);
  if (!id || !validSessionId(id)) throw new ConfigError(`${key}.id`, SESSION_ID_RULE);
  const spec: SessionSpec = { id, attributes: optScalarMap(item.attributes, `${key}.attributes`) };
  const pool = optString(item.pool, `${key}.pool`);
  const poolProblem = pool !== undefined && pool !== '' ? poolRefProblem(pool) : undefined;
  if (poolProblem !== undefined)
    throw new ConfigError(
      `${key}.pool`,
      `must be a pool id or name of at most ${MAX_POOL_REF} characters, not dots only, without / \\ ? # or control characters: ${poolProblem}`,
    );
  if (pool) spec.pool = pool;
  if (item.start !== undefined) spec.start = parseStart(item.start, `${key}.start`);
  return spec;
}

export function parseStart(v: unknown, key: string): SessionSpec['start'] {
  if (v === 'oldest' || v === 'latest') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  throw new ConfigError(key, 'must be "oldest", "latest" or a sequence number to resume after');
}

/**
 * BRIDGE_SESSIONS naming an id more than once: followed once, as it should be, but a list built by
 * a script that repeats ids may also be missing the ones it meant. Warnings for configWarnings;
 * an invalid list is load-config's error, not a warning.
 */
export function sessionListWarnings(text: string | undefined): string[] {
  if (!text) return [];
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const id of text.split(',').map((s) => s.trim())) {
    if (id === '') continue;
    if (seen.has(id)) twice.add(id);
    seen.add(id);
  }
  if (twice.size === 0) return [];
  const named = [...twice].slice(0, 5).map((id) => `"${id}"`);
  const more = twice.size > 5 ? ` and ${twice.size - 5} more` : '';
  const ids = twice.size === 1 ? 'an id' : `${twice.size} ids`;
  return [`BRIDGE_SESSIONS names ${ids} more than once (${named.join(', ')}${more}): each is followed once`];
}

/**
 * BRIDGE_SESSIONS naming an id the file's `sessions:` lists with options of its own (a start, a pool,
 * attributes): the id is followed once, as the file's entry, so the variable's bare id (the global
 * start, no pool, no attributes) is not what runs. An id BRIDGE_SESSIONS alone adds has no options,
 * so a spec of an id the variable names that has some is the file's. A bare id in both is the same
 * session either way, and says nothing.
 */
export function sessionOverlapWarnings(sessions: readonly SessionSpec[], text: string | undefined): string[] {
  if (!text) return [];
  const named = new Set(text.split(',').map((s) => s.trim()));
  const overlaps: Array<{ id: string; options: string }> = [];
  for (const spec of sessions) {
    if (!named.has(spec.id)) continue;
    const options = specOptions(spec);
    if (options !== '') overlaps.push({ id: spec.id, options });
  }
  if (overlaps.length === 0) return [];
  if (overlaps.length === 1) {
    const { id, options } = overlaps[0]!;
    return [
      `session "${id}" is in BRIDGE_SESSIONS and in the file's sessions with ${options}: it is followed once, as the file's entry says`,
    ];
  }
  const ids = overlaps.slice(0, 5).map((o) => `"${o.id}"`);
  const more = overlaps.length > 5 ? ` and ${overlaps.length - 5} more` : '';
  return [
    `${overlaps.length} sessions are in BRIDGE_SESSIONS and in the file's sessions with options (${ids.join(', ')}${more}): each is followed once, as the file's entry says`,
  ];
}

/** A spec's options as a warning names them: `start: latest, pool: p1, attributes: team, tier`; '' for none. */
function specOptions(spec: SessionSpec): string {
  const parts: string[] = [];
  if (spec.start !== undefined) parts.push(`start: ${spec.start}`);
  if (spec.pool !== undefined) parts.push(`pool: ${spec.pool}`);
  const keys = Object.keys(spec.attributes);
  if (keys.length > 0) parts.push(`attributes: ${keys.join(', ')}`);
  return parts.join(', ');
}

/** BRIDGE_SESSIONS: a comma-separated list of ids. */
export function parseSessionList(text: string, key: string): SessionSpec[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((id) => {
      if (!validSessionId(id)) throw new ConfigError(key, `"${id}" is not a valid session id`);
      return { id, attributes: {} };
    });
}
