// Rendering of `top`: the model as lines of text, for a terminal (header, a sorted and filtered
// session table cut to the screen, a key line) or as a plain table for a pipe. Pure: width,
// height and the view state are arguments, so every layout is a table-driven test.
import { cutToWidth, displayWidth, padEndToWidth, padStartToWidth } from './display-width.js';
import type { Paint } from './ansi.js';
import type { SessionRow, TopModel } from './top-model.js';
import { printable } from '../util/printable.js';

export type SortKey = 'id' | 'state' | 'rate' | 'lag' | 'gaps' | 'error';

export interface ViewState {
  sort: SortKey;
  /** Largest first for numbers, A→Z for text; the same key again flips it. */
  descending: boolean;
  /** Sessions whose id, state, source, owner or last error contain this text (case-insensitive). */
  filter: string;
  /** The filter is being typed (after `/`). */
  editing: boolean;
}

/** The key that selects each sort, as shown on the key line. */
export const SORT_KEYS: Record<string, SortKey> = { i: 'id', s: 'state', r: 'rate', l: 'lag', g: 'gaps', e: 'error' };

export const initialView = (sort: SortKey = 'lag'): ViewState => ({
  sort,
  descending: sort !== 'id' && sort !== 'state',
  filter: '',
  editing: false,
});

/** Applies one key press to the view; returns 'quit' for q / Ctrl-C. */
export function onKey(view: ViewState, key: string): ViewState | 'quit' {
  if (key === '\u0003') return 'quit';
  if (view.editing) {
    if (key === '\r' || key === '\n') return { ...view, editing: false };
    if (key === '\u001b') return { ...view, editing: false, filter: '' };
    if (key === '\u007f' || key === '\b') return { ...view, filter: view.filter.slice(0, -1) };
    return /^[\x20-\x7e]+$/.test(key) ? { ...view, filter: view.filter + key } : view;
  }
  if (key === 'q') return 'quit';
  if (key === '/') return { ...view, editing: true };
  if (key === '\u001b') return { ...view, filter: '' };
  const sort = SORT_KEYS[key];
  if (sort === undefined) return view;
  return sort === view.sort ? { ...view, descending: !view.descending } : { ...initialView(sort), filter: view.filter };
}

const numeric = (r: SessionRow, key: SortKey): number =>
  key === 'rate' ? (r.rate ?? -1) : key === 'lag' ? r.lag : key === 'gaps' ? r.gaps : 0;

/**
 * The rows to show: filtered, then sorted (ties by id, so the order is stable between frames);
 * sessions that ended come after the ones still read, whatever the sort.
 */
export function visibleRows(rows: readonly SessionRow[], view: ViewState): SessionRow[] {
  const f = view.filter.toLowerCase();
  const kept =
    f === ''
      ? [...rows]
      : rows.filter((r) => `${r.id} ${r.state} ${r.source} ${r.owner} ${r.lastError}`.toLowerCase().includes(f));
  const dir = view.descending ? -1 : 1;
  return kept.sort((a, b) => {
    if (a.done !== b.done) return a.done ? 1 : -1;
    let c: number;
    if (view.sort === 'id') c = a.id.localeCompare(b.id);
    else if (view.sort === 'state') c = a.state.localeCompare(b.state);
    else if (view.sort === 'error') c = a.lastError.localeCompare(b.lastError);
    else c = numeric(a, view.sort) - numeric(b, view.sort);
    return c * dir || a.id.localeCompare(b.id);
  });
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${n.toFixed(n >= 100 ? 0 : 1)} ${units[i]}`;
}

export const formatRate = (r: number | undefined): string =>
  r === undefined ? '-' : r >= 100 ? r.toFixed(0) : r.toFixed(1);

function formatAge(s: number): string {
  if (s < 60) return `${Math.round(s)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** The two summary lines: who and what overall, then the exporter and the spool. */
export function summaryLines(model: TopModel, url: string): string[] {
  const e = model.exporter;
  const byState = new Map<string, number>();
  for (const s of model.sessions) byState.set(s.state, (byState.get(s.state) ?? 0) + 1);
  const states = [...byState]
    .sort((a, b) => b[1] - a[1])
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  const fill = e.spoolCapacity
    ? ` / ${formatBytes(e.spoolCapacity)} (${Math.round((100 * e.spoolBytes) / e.spoolCapacity)}%)`
    : '';
  return [
    `bridge ${model.version ?? '?'} at ${url}   sessions ${model.sessions.length}${states ? ` (${states})` : ''}   received ${formatRate(e.receivedRate)}/s`,
    `exporter delivered ${formatRate(e.deliveredRate)}/s, failed ${formatRate(e.failureRate)}/s (${e.failures} failed requests)   ` +
      `spool ${formatBytes(e.spoolBytes)}${fill}, ${e.spoolRecords} records, oldest ${formatAge(e.oldestAgeSeconds)}`,
    ...(e.lastError ? [`exporter failing: ${e.lastError}`] : []),
    ...(e.tracesError ? [`traces failing: ${e.tracesError}`] : []),
    ...staleLine(model.othersStaleMs),
  ];
}

/** The shared store is slow to answer: the other replicas' rows are not current (or missing). */
function staleLine(ageMs: number | null | undefined): string[] {
  if (ageMs === undefined) return [];
  if (ageMs === null) return ["store not answering: only this replica's sessions are listed"];
  return [`store not answering: other replicas' sessions as of ${formatAge(ageMs / 1000)} ago`];
}

const COLUMNS = [
  'SESSION',
  'STATE',
  'SOURCE',
  'OWNER',
  'RATE/s',
  'LAG',
  'GAPS',
  'MISSING',
  'RECONN',
  'LAST ERROR',
] as const;
/** The column shown only when the bridge shares its store with other replicas. */
const OWNER = COLUMNS.indexOf('OWNER');
const RIGHT = new Set<string>(['RATE/s', 'LAG', 'GAPS', 'MISSING', 'RECONN']);
const SORT_COLUMN: Record<SortKey, string> = {
  id: 'SESSION',
  state: 'STATE',
  rate: 'RATE/s',
  lag: 'LAG',
  gaps: 'GAPS',
  error: 'LAST ERROR',
};

const cells = (r: SessionRow): string[] => [
  r.id,
  r.state,
  r.source,
  r.owner,
  formatRate(r.rate),
  String(r.lag),
  String(r.gaps),
  String(r.missing),
  String(r.reconnects),
  r.lastError || '-',
];

/** Aligned table lines (header first); the last column is cut to `width` when one is given. */
export function tableLines(
  rows: readonly SessionRow[],
  opts: { width?: number; sortColumn?: string; owners?: boolean } = {},
): string[] {
  const shown = COLUMNS.filter((_c, i) => opts.owners === true || i !== OWNER);
  const data = rows.map((r) => cells(r).filter((_c, i) => opts.owners === true || i !== OWNER));
  const header = shown.map((c) => (c === opts.sortColumn ? `${c}*` : c));
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...data.map((d) => displayWidth(d[i]!))));
  const line = (cols: readonly string[]): string => {
    const text = cols
      .map((c, i) =>
        i === cols.length - 1
          ? c
          : RIGHT.has(shown[i]!)
            ? padStartToWidth(c, widths[i]!)
            : padEndToWidth(c, widths[i]!),
      )
      .join('  ');
    return opts.width !== undefined ? cutToWidth(text, opts.width) : text;
  };
  return [line(header), ...data.map(line)];
}

/** The plain table for a pipe or --once: summary, a blank line, every session sorted by the view. */
export function renderPlain(model: TopModel, url: string, view: ViewState = initialView()): string {
  const table = tableLines(visibleRows(model.sessions, view), { owners: model.replicated });
  return [...summaryLines(model, url), '', ...table].join('\n') + '\n';
}

/** A full terminal frame of exactly `height` lines (or fewer when the screen is tiny), each at most `width` wide. */
export function renderScreen(
  model: TopModel,
  view: ViewState,
  o: { url: string; width: number; height: number; error?: string; p: Paint },
): string[] {
  const cut = (s: string): string => cutToWidth(s, o.width);
  const rows = visibleRows(model.sessions, view);
  const head = summaryLines(model, o.url).map(cut);
  if (o.error) head.push(o.p.red(cut(`! ${printable(o.error)}`)));
  const table = tableLines(rows, { width: o.width, sortColumn: SORT_COLUMN[view.sort], owners: model.replicated });
  const keys = view.editing
    ? `filter: ${view.filter}█   (Enter keep, Esc clear)`
    : `sort: i id  s state  r rate  l lag  g gaps  e error (again: reverse)   / filter${view.filter ? ` [${view.filter}]` : ''}   q quit`;
  const room = Math.max(0, o.height - head.length - 3); // blank line, table header, key line
  const body = table.slice(1, 1 + room);
  const hidden = rows.length - body.length;
  if (hidden > 0 && body.length > 0)
    body[body.length - 1] = o.p.dim(cut(`… ${hidden + 1} more sessions (filter with /)`));
  const out = [...head, '', o.p.bold(table[0]!), ...body];
  while (out.length < o.height - 1) out.push('');
  out.push(o.p.dim(cut(keys)));
  return out.slice(0, Math.max(1, o.height));
}
