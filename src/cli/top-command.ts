// `top`: a live view of a running bridge, read from its HTTP surface (GET /v1/sessions with the
// control token when one is set, GET /metrics), like `vector top`. Plain ANSI, no dependency, so it
// works in any terminal and over SSH. On a terminal it takes the alternate screen and redraws in
// place every --interval; keys sort and filter. Not on a terminal (a pipe, a log), or with --once,
// it reads twice one interval apart (rates need two reads) and prints one plain table.
//
// Lifecycle (terminal): first read → draw → every interval: read, draw (a failed read keeps the last
// frame and shows the error) → q / Ctrl-C / SIGTERM: restore the screen, exit 0.
// Exit codes: 0 done; 1 the bridge cannot be read (once mode) or refused the token; 2 usage.
import { text } from 'node:stream/consumers';
import { MAX_DURATION_MS, parseDurationMs } from '../config/readers.js';
import { HttpClient } from '../util/http-client.js';
import { networkMessage } from '../util/network-message.js';
import { printable } from '../util/printable.js';
import { paint, useColor } from './ansi.js';
import { buildModel, parseMetrics, parseOthersStale, type SessionStatusView, type Snapshot } from './top-model.js';
import {
  initialView,
  onKey,
  renderPlain,
  renderScreen,
  SORT_KEYS,
  type SortKey,
  type ViewState,
} from './top-render.js';
import { parseCommand, UsageError } from '../util/command-line.js';

const HELP = `Usage: browser-telemetry-bridge top [options]

A live view of a running bridge: every session with its state, event rate, lag (received but not
yet delivered), gaps, reconnects and last error; the exporter's delivery and failure rates; the
spool's fill. Reads the bridge's HTTP surface (GET /v1/sessions, GET /metrics, and GET /readyz
for why the exporter fails).

Keys: i s r l g e sort by id, state, rate, lag, gaps, last error (the same key again reverses);
      / filter (Enter keeps, Esc clears); q quit.
Not on a terminal, or with --once, it prints one plain table and exits.

Options:
      --url URL           the bridge's HTTP surface (default: http://$BRIDGE_LISTEN, else
                          http://127.0.0.1:9464)
      --token TOKEN       control token (default: $BRIDGE_CONTROL_TOKEN)
      --interval DURATION refresh period, e.g. 2s or 500ms (default 2s)
      --sort KEY          id, state, rate, lag (default), gaps or error
      --once              print one plain table and exit
      --color, --no-color force colours on or off
  -h, --help              show this help

Examples:
  browser-telemetry-bridge top
  browser-telemetry-bridge top --url http://10.0.0.5:9464 --token "$BRIDGE_CONTROL_TOKEN"
  ssh host browser-telemetry-bridge top --once --sort gaps`;

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  interval: { type: 'string' },
  sort: { type: 'string' },
  once: { type: 'boolean' },
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
} as const;

const SORTS = Object.values(SORT_KEYS);

/** A read that failed, with one line for a person. */
class ReadError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const args = parseCommand(argv, OPTIONS, HELP);
  if (!args) return 0;
  const v = args.values;
  const url = (v.url ?? defaultUrl(process.env.BRIDGE_LISTEN)).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`--url must be an http(s) URL (got "${url}")`);
  // Trimmed as the daemon trims its own (config/load-config.ts): the same Secret's line end.
  const token = (v.token ?? process.env.BRIDGE_CONTROL_TOKEN)?.trim() || undefined;
  const intervalMs = v.interval === undefined ? 2000 : parseDurationMs(v.interval);
  // A longer interval than a timer can wait would refresh every millisecond (config/readers.ts).
  if (intervalMs === undefined || intervalMs < 100 || intervalMs > MAX_DURATION_MS)
    throw new UsageError(`--interval must be a duration between 100ms and 596h, e.g. 2s (got "${v.interval}")`);
  const sort = (v.sort ?? 'lag') as SortKey;
  if (!SORTS.includes(sort)) throw new UsageError(`--sort must be one of ${SORTS.join(', ')} (got "${v.sort}")`);
  // One client for every read, its connection kept between them; the bridge's own surface, which is
  // not reached through a proxy.
  const http = new HttpClient({
    connectTimeoutMs: READ_TIMEOUT_MS,
    headersTimeoutMs: READ_TIMEOUT_MS,
    bodyTimeoutMs: READ_TIMEOUT_MS,
    env: {},
  });
  const read = (): Promise<Snapshot> => readSnapshot(http, url, token);
  const interactive = v.once !== true && process.stdout.isTTY === true && process.stdin.isTTY === true;
  try {
    if (!interactive) return await once(read, url, Math.min(intervalMs, 1000), initialView(sort));
    const p = paint(useColor(process.stdout, { color: v.color === true, noColor: v['no-color'] === true }));
    return await live(read, url, intervalMs, initialView(sort), p);
  } catch (err) {
    if (!(err instanceof ReadError)) throw err;
    process.stderr.write(`error: ${err.message}\n`);
    return 1;
  } finally {
    http.close();
  }
}

/** One read of the surface may take this long. */
const READ_TIMEOUT_MS = 5000;

/** BRIDGE_LISTEN as a URL the way `run` reads it: host:port, [v6]:port; `0.0.0.0` means this host. */
export function defaultUrl(listen: string | undefined): string {
  const m = listen ? /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(listen.trim()) : null;
  if (!m) return 'http://127.0.0.1:9464';
  const host = m[1] ?? m[2] ?? '';
  const local =
    host === '' || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : m[1] !== undefined ? `[${host}]` : host;
  return `http://${local}:${m[3]}`;
}

async function readSnapshot(http: HttpClient, url: string, token: string | undefined): Promise<Snapshot> {
  const get = async (path: string, auth: boolean): Promise<string> => {
    let status: number;
    let body: string;
    try {
      const res = await http.request(`${url}${path}`, {
        headers: auth && token ? { authorization: `Bearer ${token}` } : {},
        signal: AbortSignal.timeout(READ_TIMEOUT_MS),
      });
      status = res.statusCode;
      body = await text(res.body);
    } catch (err) {
      throw new ReadError(
        `cannot reach the bridge at ${url}: ${networkMessage(err)} (is it running? --url or BRIDGE_LISTEN say where)`,
      );
    }
    if (status === 401)
      throw new ReadError(`the bridge at ${url} refused the control token: pass --token or set BRIDGE_CONTROL_TOKEN`);
    if (status !== 200) throw new ReadError(refusedRead(url, path, status, body));
    return body;
  };
  const [sessionsText, metricsText, failing] = await Promise.all([
    get('/v1/sessions', true),
    get('/metrics', false),
    readExportErrors(http, url),
  ]);
  let list: { sessions: SessionStatusView[]; replica?: unknown; othersStale?: unknown };
  try {
    list = JSON.parse(sessionsText) as typeof list;
    if (!Array.isArray(list.sessions)) throw new Error('no sessions list');
  } catch {
    throw new ReadError(`${url}/v1/sessions did not answer like a bridge (is --url the bridge's HTTP surface?)`);
  }
  return {
    atMs: Date.now(),
    sessions: list.sessions,
    metrics: parseMetrics(metricsText),
    ...(typeof list.replica === 'string' ? { replica: list.replica } : {}),
    ...failing,
    ...parseOthersStale(list.othersStale),
  };
}

/**
 * A read the surface answered with something else than 200, in one line. The bridge's answers are
 * `{code, message}` (a 403 from a closed control API says what to set): its sentence, not the
 * JSON cut at some length; what is not such an answer (another program at --url) is quoted short.
 */
function refusedRead(url: string, path: string, status: number, body: string): string {
  let said: { code?: unknown; message?: unknown } | undefined;
  try {
    said = JSON.parse(body) as typeof said;
  } catch {
    said = undefined;
  }
  if (typeof said?.message === 'string') {
    const code = typeof said.code === 'string' ? ` ${said.code}` : '';
    return printable(`the bridge at ${url} refused GET ${path} (${status}${code}): ${said.message}`);
  }
  return printable(`GET ${url}${path} answered ${status}: ${body.slice(0, 200).trim()}`);
}

/** Why the records' exporter and the spans' fail, from /readyz (200 or 503 alike); nothing when it does not say. */
async function readExportErrors(
  http: HttpClient,
  url: string,
): Promise<Pick<Snapshot, 'exporterError' | 'tracesError'>> {
  type Failing = { failing?: unknown; lastError?: unknown } | undefined;
  const said = (f: Failing): string | undefined =>
    f?.failing === true && typeof f.lastError === 'string' ? f.lastError : undefined;
  try {
    const res = await http.request(`${url}/readyz`, { signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
    const body = JSON.parse(await text(res.body)) as { exporter?: Failing; traces?: Failing };
    const exporterError = said(body.exporter);
    const tracesError = said(body.traces);
    return {
      ...(exporterError === undefined ? {} : { exporterError }),
      ...(tracesError === undefined ? {} : { tracesError }),
    };
  } catch {
    // An older bridge, or one that went away between reads: the other reads say so.
    return {};
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function once(read: () => Promise<Snapshot>, url: string, gapMs: number, view: ViewState): Promise<number> {
  const first = await read();
  await sleep(gapMs);
  process.stdout.write(renderPlain(buildModel(first, await read()), url, view));
  return 0;
}

function live(
  read: () => Promise<Snapshot>,
  url: string,
  intervalMs: number,
  start: ViewState,
  p: ReturnType<typeof paint>,
): Promise<number> {
  const out = process.stdout;
  const stdin = process.stdin;
  let view = start;
  let prev: Snapshot | undefined;
  let cur: Snapshot | undefined;
  let error: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let done = false;

  const draw = (): void => {
    if (done || !cur) return;
    const lines = renderScreen(buildModel(prev, cur), view, {
      url,
      width: out.columns || 80,
      height: out.rows || 24,
      error,
      p,
    });
    // Home, each line cleared to its end, the rest of the screen cleared: no flicker, no scroll.
    out.write(`\u001b[H${lines.join('\u001b[K\n')}\u001b[K\u001b[J`);
  };
  const tick = async (): Promise<void> => {
    try {
      const next = await read();
      prev = cur;
      cur = next;
      error = undefined;
    } catch (err) {
      if (!(err instanceof ReadError)) throw err;
      error = err.message;
      if (!cur) cur = { atMs: Date.now(), sessions: [], metrics: [] };
    }
    draw();
    if (!done) timer = setTimeout(() => void tick(), intervalMs);
  };

  return new Promise<number>((resolve) => {
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      out.off('resize', draw);
      process.off('SIGTERM', finish);
      out.write('\u001b[?25h\u001b[?1049l'); // cursor back, main screen back
      resolve(0);
    };
    const onData = (buf: Buffer): void => {
      // One chunk may hold several keys (typing fast, pasting); arrow keys arrive as ESC sequences.
      const text = buf.toString('utf8');
      const keys =
        text.startsWith('\u001b[') || text.startsWith('\u001bO') ? [] : text === '\u001b' ? ['\u001b'] : [...text];
      for (const key of keys) {
        const next = onKey(view, key);
        if (next === 'quit') return finish();
        view = next;
      }
      draw();
    };
    out.write('\u001b[?1049h\u001b[?25l\u001b[H\u001b[2J'); // alternate screen, cursor hidden
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
    out.on('resize', draw);
    process.on('SIGTERM', finish);
    void tick();
  });
}
