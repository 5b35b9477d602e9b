// `tail <session>`: a session's telemetry, live, one line per event. It reuses the daemon's
// Subscriber (reconnect, backoff, idle watchdog, Last-Event-ID resume) and sequenced stream (duplicates
// after a resume are dropped, gaps are shown), so it survives cuts and service restarts by itself.
//
// Lifecycle: connecting → streaming ⇄ reconnecting → done. Done, with its exit code:
//   0  the session ended while followed, or stdout closed (| head)
//      (a session that had already ended: its events from the archive, with --from oldest or N)
//   130 / 143  Ctrl-C (SIGINT) / SIGTERM, as a shell reports a command a signal stopped; a
//      summary of what it showed comes first (tail-summary.ts)
//   1  the session was not found at the first request (a typo must fail a script), or 401/403:
//      printed once, no retry; a person at a terminal is better served by the service's message
//      than by a process that waits five minutes and asks again
// stdout carries only events (pretty lines, or envelopes with -o json); notes go to stderr.
import type { BridgeConfig } from '../config/schema.js';
import { categoryProblem, typeWarnings } from '../config/event-names.js';
import { validSessionId } from '../config/sessions.js';
import { CATALOGUE_BY_TYPE } from '../mapping/catalogue.js';
import { compileFilter, type EventFilter } from '../mapping/filters.js';
import { SequencedStream, type GapItem, type StreamItem } from '../stream/sequenced-stream.js';
import { Subscriber, type ReconnectReason, type SubscriberEvent } from '../stream/subscriber.js';
import type { UpstreamClient } from '../upstream/client.js';
import { paint, useColor, type Paint } from './ansi.js';
import { formatDelay, formatEventLine, formatGap, formatNote, type NoteKind } from './tail-format.js';
import { createTailView, type TailView } from './tail-view.js';
import { createUpstreamClient, loadUpstreamConfig } from './upstream-config.js';
import { parseCommand, UsageError } from '../util/command-line.js';
import { displayUrl } from '../mapping/display-url.js';
import { terminalJson } from '../util/printable.js';
import { explainSessionNotFound } from './session-not-found.js';
import { ReconnectNotes } from './tail-reconnect-notes.js';
import { readEndedSession, repairLiveGap, tailArchiveReader } from './tail-archive.js';
import { endedSession } from './check-probes.js';
import { emptyTally, tailSummary } from './tail-summary.js';

const HELP = `Usage: browser-telemetry-bridge tail <session> [options]

Follows one browser session's telemetry live: one line per event with its local time, severity,
type and essentials. Reconnects by itself and resumes where it left off (Last-Event-ID); events the
stream no longer holds or could not decode are read from the service's archive, and what that lacks
too (gaps) and reconnects are shown as notes on stderr. Exits 0 when the session ends; Ctrl-C (or SIGTERM) stops
it with a summary of what it showed (events, gaps, how long) and exit code 130 (143); a session
that had already ended is read from the service's archive with --from oldest or N (without them
it says the session ended, and exits 0 too; 1 when the archive cannot be read now). Exits 1 when
the session does not exist (the service does not know it), and on 401/403 it prints the service's
message and exits 1 instead of retrying: a bad key or a missing permission does not fix itself
while you wait. With --from N beyond the session's latest event it says so and waits for #N.

Options:
      --categories LIST   only these categories (comma-separated), e.g. console,network
      --types LIST        only these event types, e.g. console_error,network_response
                          (with both, an event matching either list is shown)
      --from POS          latest (default: new events only), oldest (everything the service
                          still retains) or a sequence number N (events from #N on)
  -o, --output FORMAT     pretty (default) or json: one envelope per line, for jq (as received when
                          nothing in it is masked; otherwise with the masks of exported records)
      --no-redact         show secrets unmasked (by default masked as in exported records: headers,
                          URLs, typed keys, body secrets, dropped members, source metadata)
      --color, --no-color force colours on or off (default: on a terminal, unless NO_COLOR is set)
  -c, --config FILE       configuration file (default: $BRIDGE_CONFIG); only the service URL and key
                          are needed: BROWSER_API_URL and BROWSER_API_KEY or BROWSER_API_KEY_FILE
  -h, --help              show this help

Examples:
  browser-telemetry-bridge tail sess_123
  browser-telemetry-bridge tail sess_123 --from oldest --types console_error,network_loading_failed
  browser-telemetry-bridge tail sess_123 --categories network -o json | jq -c 'select(.event.data.status >= 500)'
  BROWSER_API_URL=https://api.example.com BROWSER_API_KEY_FILE=~/.config/browser/key \\
    browser-telemetry-bridge tail sess_123 --from 1200`;

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  categories: { type: 'string' },
  types: { type: 'string' },
  from: { type: 'string' },
  output: { type: 'string', short: 'o' },
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  'no-redact': { type: 'boolean' },
} as const;

export type TailStart = 'oldest' | 'latest' | number;

export interface TailOptions {
  sessionId: string;
  from: TailStart;
  json: boolean;
  filter: EventFilter | undefined;
  view: TailView;
  out: Paint;
  err: Paint;
  /** With --from N: how long without an event before saying that it waits for #N. */
  waitingNoteMs?: number;
}

const REASONS: Record<ReconnectReason, string> = {
  closed: 'the stream closed',
  idle: 'no data or keepalive for too long',
  network: 'network error',
  server_error: 'the service failed',
  rate_limited: 'rate limited',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  bad_content_type: 'unexpected answer',
  frame_too_large: 'a frame was too large',
  http_error: 'unexpected status',
};

const list = (v: string | undefined): string[] | undefined => {
  const items = v
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items && items.length > 0 ? items : undefined;
};

export function parseFrom(v: string | undefined): TailStart {
  if (v === undefined || v === 'latest') return 'latest';
  if (v === 'oldest') return 'oldest';
  if (/^\d+$/.test(v) && Number(v) >= 1 && Number.isSafeInteger(Number(v))) return Number(v);
  throw new UsageError(`--from must be oldest, latest or a sequence number ≥ 1 (got "${v}")`);
}

export async function main(argv: string[]): Promise<number> {
  const args = parseCommand(argv, OPTIONS, HELP, 1);
  if (!args) return 0;
  const v = args.values;
  const sessionId = args.positionals[0];
  if (sessionId === undefined) throw new UsageError(`tail needs a session id\n\n${HELP}`);
  if (!validSessionId(sessionId)) throw new UsageError(`"${sessionId}" is not a valid session id`);
  const output = v.output ?? 'pretty';
  if (output !== 'pretty' && output !== 'json') throw new UsageError(`-o must be pretty or json (got "${output}")`);
  const from = parseFrom(v.from);
  const includeCategories = list(v.categories);
  const includeTypes = list(v.types);
  // A category that does not exist would show nothing forever; a type may be newer than this build.
  for (const c of includeCategories ?? []) {
    const problem = categoryProblem(c);
    if (problem) throw new UsageError(`--categories: ${problem}`);
  }
  const flags = { color: v.color === true, noColor: v['no-color'] === true };
  for (const w of typeWarnings(includeTypes ?? [], '--types'))
    process.stderr.write(formatNote('warn', w, paint(useColor(process.stderr, flags))) + '\n');
  const config: BridgeConfig = loadUpstreamConfig(v.config);
  const filters = { ...(includeCategories ? { includeCategories } : {}), ...(includeTypes ? { includeTypes } : {}) };
  const client = createUpstreamClient(config, 'tail');
  return runTail(client, config, {
    sessionId,
    from,
    json: output === 'json',
    filter: compileFilter(filters),
    view: createTailView(config.mapping.redaction, v['no-redact'] !== true),
    out: paint(output === 'pretty' && useColor(process.stdout, flags)),
    err: paint(useColor(process.stderr, flags)),
  });
}

/** Follows the session until it ends, a signal arrives or the key is refused; resolves to the exit code. */
export function runTail(client: UpstreamClient, config: BridgeConfig, o: TailOptions): Promise<number> {
  const stdout = process.stdout;
  const stderr = process.stderr;
  const seq = new SequencedStream({ lastSeq: typeof o.from === 'number' ? o.from - 1 : 0, epoch: 0 }, o.from);
  const note = (kind: NoteKind, text: string): void => void stderr.write(formatNote(kind, text, o.err) + '\n');
  const fromText =
    o.from === 'latest' ? 'new events' : o.from === 'oldest' ? 'the oldest retained event' : `#${o.from}`;
  const startedAt = performance.now();
  const tally = emptyTally();

  return new Promise<number>((resolve) => {
    let connects = 0;
    let done = false;
    let releasePause: (() => void) | undefined;
    let malformedNoted = 0;
    const breaks = new ReconnectNotes(note);
    let triedBefore = false;

    // --from N: the service resumes after N-1 and sends nothing until #N exists, which looks like a
    // hang. Say so once when nothing has come a little while after connecting.
    let received = false;
    let waitingTimer: NodeJS.Timeout | undefined;
    const finish = (code: number): void => {
      if (done) return;
      done = true;
      clearTimeout(waitingTimer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      releasePause?.();
      // Deferred: the subscriber arms its retry timer right after onReconnect returns, and stop()
      // must find that timer to cancel it.
      setImmediate(() => {
        void subscriber
          .stop()
          .then(() => client.close())
          .finally(() => resolve(code));
      });
    };
    const onSignal = (signal: NodeJS.Signals): void => {
      if (done) return;
      note('info', tailSummary(tally, signal, performance.now() - startedAt));
      finish(signal === 'SIGTERM' ? 143 : 130);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // `tail ... | head`: the reader went away; that is a normal way to stop.
    stdout.on('error', (err: NodeJS.ErrnoException) => finish(err.code === 'EPIPE' ? 0 : 1));

    // A gap is read from the archive first, and what follows it waits, so events show in seq order.
    const archive = tailArchiveReader(client, config);
    const onItems = (items: StreamItem[]): void | Promise<void> => {
      const at = items.findIndex((i) => i.kind === 'gap' && i.last !== undefined && i.reason !== 'frame_too_large');
      if (at < 0) return show(items);
      return (async () => {
        await show(items.slice(0, at));
        if (done) return;
        const gap = items[at] as GapItem;
        const r = await repairLiveGap(archive, o.sessionId, gap);
        if (r.failed !== undefined)
          note('warn', `the service's archive could not be read for #${gap.first}–#${gap.last}: ${r.failed}`);
        await show(r.items);
        await onItems(items.slice(at + 1));
      })();
    };

    const show = (items: StreamItem[]): void | Promise<void> => {
      let text = '';
      let shown = 0;
      for (const item of items) {
        if (item.kind === 'malformed') {
          // Its seq shows up as a gap once the next event arrives; the payload is never echoed. A
          // resume replays it: say so once.
          const id = item.frameId !== undefined && /^\d+$/.test(item.frameId) ? Number(item.frameId) : undefined;
          if (id === undefined || id > malformedNoted) {
            note('warn', `skipped an undecodable frame (id ${item.frameId ?? 'none'}): ${item.reason}`);
            tally.malformed++;
          }
          if (id !== undefined) malformedNoted = Math.max(malformedNoted, id);
          continue;
        }
        if (item.kind === 'epoch') {
          note('warn', `the service restarted its sequence (now at #${item.seq}); continuing`);
          continue;
        }
        if (item.kind === 'gap') {
          if (item.reason === 'frame_too_large') {
            note('warn', `event #${item.first} is larger than the frame limit; skipped`);
            tally.gaps++;
            tally.missed++;
          } else if (item.last !== undefined) {
            stderr.write(formatGap(item.first, item.last, o.err) + '\n');
            tally.gaps++;
            tally.missed += item.last - item.first + 1;
          }
          continue;
        }
        if (item.kind !== 'event') continue;
        received = true;
        const env = item.envelope;
        const ev = env.event;
        if (o.filter && !o.filter.accepts(ev.type, ev.category, CATALOGUE_BY_TYPE.get(ev.type)?.category)) {
          tally.filtered++;
          continue;
        }
        shown++;
        text +=
          (o.json
            ? terminalJson(o.view.json(env, JSON.stringify(env)))
            : formatEventLine(env, o.view.view(env), o.out)) + '\n';
      }
      if (text === '' || done) return;
      tally.shown += shown;
      // Back-pressure from a slow reader (a pager, a pipe): stop reading until stdout drains.
      if (!stdout.write(text)) {
        return new Promise<void>((r) => {
          releasePause = r;
          stdout.once('drain', () => r());
        });
      }
    };

    const onConnected = (): void => {
      connects++;
      if (connects > 1) tally.reconnects++;
      const after = breaks.connected();
      if (connects === 1) {
        note('info', `following ${o.sessionId} from ${fromText}; Ctrl-C to stop`);
        const from = o.from;
        if (typeof from === 'number') {
          waitingTimer = setTimeout(() => {
            if (!received && !done)
              note('info', `nothing at or after #${from} yet: the session has not reached #${from}; waiting for it`);
          }, o.waitingNoteMs ?? 2000);
          waitingTimer.unref();
        }
      } else
        note(
          'info',
          `reconnected${after ? ` after ${after}` : ''}${seq.lastSeq > 0 ? `; resuming after #${seq.lastSeq}` : ''}`,
        );
    };

    const onReconnect = (reason: ReconnectReason, delayMs: number, detail?: string): void => {
      if (done) return;
      if (reason === 'unauthorized' || reason === 'forbidden') {
        // The subscriber's 401 detail already says which key to check (its source): add the hint
        // only when it does not, so the one line names it once.
        const hint =
          reason === 'unauthorized'
            ? 'check BROWSER_API_KEY / BROWSER_API_KEY_FILE (or upstream.api_key in the configuration)'
            : "the key is valid but may not read this session's telemetry";
        note(
          'error',
          detail === undefined ? `${reason}: ${hint}` : /\bcheck\b/.test(detail) ? detail : `${detail}: ${hint}`,
        );
        finish(1);
        return;
      }
      const why = detail ? `${REASONS[reason]} (${detail})` : REASONS[reason];
      // Before the first connection the service itself may be the problem: say where it was sought.
      const where =
        connects === 0 && reason !== 'closed'
          ? ` at ${displayUrl(config.upstream.url)} (is BROWSER_API_URL right, and the service up?)`
          : '';
      // A service that is down is tried again and again: say once that it will be, and how to stop.
      const forever =
        connects === 0 && !triedBefore ? ' (tail keeps trying until the service answers; Ctrl-C stops it)' : '';
      triedBefore = true;
      breaks.failed(
        reason === 'closed' ? 'info' : 'warn',
        `${why}${where}; reconnecting in ${formatDelay(delayMs)}${forever}`,
      );
    };

    const subscriber = new Subscriber(
      o.sessionId,
      client,
      seq,
      {
        push: (items) => onItems(items),
        report: (ev: SubscriberEvent) => {
          if (ev.type === 'connected') onConnected();
          else if (ev.type === 'reconnect') onReconnect(ev.reason, ev.delayMs, ev.detail);
        },
        ended: async (items) => {
          // A person watching live saw the end as it happened: only undecodable trailing frames are worth a line.
          const owed = items.filter((i) => i.kind === 'gap' && i.last !== undefined);
          if (owed.length > 0) await onItems(owed);
          if (connects === 0) {
            // Ended before tail came: what was asked for of it may still be in the service's archive.
            const archived =
              o.from === 'latest'
                ? undefined
                : await readEndedSession(client, config, o.sessionId, o.from === 'oldest' ? 1 : o.from, onItems);
            if (archived?.failed !== undefined) {
              note(
                'error',
                `session ${o.sessionId} had ended, and the service's archive could not be read${archived.read > 0 ? ` after ${archived.read} event(s)` : ''}: ${archived.failed}; try again later`,
              );
              finish(1);
              return;
            }
            if (archived !== undefined) {
              note(
                'info',
                `session ${o.sessionId} had ended: ${archived.read} event(s) read from the service's archive`,
              );
              finish(0);
              return;
            }
            // A session the service still knows ended, which is not an error (the live view exits 0
            // at an end too): say so, and where its events are, rather than "not found".
            if (await endedSession(client, o.sessionId)) {
              note(
                'info',
                o.from === 'latest'
                  ? `session ${o.sessionId} has ended: no new events will come (--from oldest reads what the service's archive kept)`
                  : `session ${o.sessionId} has ended; the service's archive has no event ${o.from === 'oldest' ? 'of it' : `at or after #${o.from}`}`,
              );
              finish(0);
              return;
            }
            note(
              'error',
              await explainSessionNotFound(client, config.upstream.url, o.sessionId, config.upstream.connectTimeoutMs),
            );
            finish(1);
            return;
          }
          breaks.ended();
          note('info', `session ${o.sessionId} ended`);
          finish(0);
        },
      },
      { idleTimeoutMs: config.upstream.idleTimeoutMs, backoff: config.upstream.backoff, start: o.from },
    );
    subscriber.start();
  });
}
