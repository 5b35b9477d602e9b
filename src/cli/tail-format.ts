// The pretty lines of `tail`: one per event, and the notes (connection, reconnects, gaps) that go to
// stderr so that stdout carries only events. Pure: time zone, colour and width come from outside.
//
//   14:03:07.412 WARN  network_response         GET https://example.com/api → 404 Not Found  #812
import { padEndToWidth } from './display-width.js';
import type { Envelope } from '../upstream/envelope.js';
import { severityText, SEVERITY } from '../mapping/severity-levels.js';
import type { Paint } from './ansi.js';
import { eventEssentials, oneLine } from './tail-essentials.js';
import type { EventView } from './tail-view.js';
import { printable } from '../util/printable.js';

/** Wide enough for every catalogue type (`interaction_scroll_settled` and `page_dom_content_loaded`). */
const TYPE_WIDTH = 26;

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Local wall-clock time with milliseconds, from Unix microseconds. */
export function formatTime(tsMicros: number): string {
  const d = new Date(Math.floor(tsMicros / 1000));
  return `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function severityLabel(n: number, p: Paint): string {
  // The short names (INFO, WARN2, …) cut to the base name: the column is for scanning.
  const text = severityText(n).replace(/\d+$/, '').padEnd(5);
  if (n >= SEVERITY.ERROR) return p.red(p.bold(text));
  if (n >= SEVERITY.WARN) return p.yellow(text);
  if (n >= SEVERITY.INFO) return p.green(text);
  return p.dim(text);
}

/** One event line (no trailing newline). */
export function formatEventLine(envelope: Envelope, view: EventView, p: Paint): string {
  const ev = envelope.event;
  const type = oneLine(ev.type, 64);
  const essentials = eventEssentials(ev.type, view.data);
  const truncated = ev.truncated === true ? p.dim(' (truncated)') : '';
  return `${p.dim(formatTime(ev.ts))} ${severityLabel(view.severity, p)} ${p.cyan(padEndToWidth(type, TYPE_WIDTH))} ${essentials}${truncated}  ${p.dim(`#${envelope.seq}`)}`;
}

/** The visible warning for missing sequence numbers (docs/design.md "Delivery semantics"). */
export function formatGap(first: number, last: number, p: Paint): string {
  const count = last - first + 1;
  const what =
    count === 1 ? `event #${first} was not received` : `${count} events (#${first}–#${last}) were not received`;
  return p.yellow(`⚠ gap: ${what} (evicted by the service or undecodable)`);
}

export type NoteKind = 'info' | 'warn' | 'error';

/**
 * A note about the connection, on stderr. Notes quote the service (error messages, a frame's `id:`,
 * a decoder's reason): control characters are neutralised here, once for every note.
 */
export function formatNote(kind: NoteKind, raw: string, p: Paint): string {
  const text = printable(raw);
  if (kind === 'error') return p.red(`✗ ${text}`);
  if (kind === 'warn') return p.yellow(`⚠ ${text}`);
  return p.dim(`· ${text}`);
}

/** "1.2 s" / "350 ms" for reconnect delays. */
export function formatDelay(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
