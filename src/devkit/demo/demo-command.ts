// `demo`: the whole pipeline on one machine, no account, no network. Starts the bundled simulator
// of the session service and a local OTLP receiver in this process, runs the daemon as a child
// process that names no session (it discovers them by tag in the service's list, as a bridge for a
// whole project runs), creates more sessions while it runs, kills it with SIGKILL halfway through,
// starts it again, and then proves from what the receiver decoded that every event of every session
// arrived (gap records accounted for, duplicates counted).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../simulator/index.js';
import { startReceiver, type Receiver } from '../receiver/server.js';
import { parseCommand, UsageError } from '../../util/command-line.js';
import { describeFailure, tallyDelivery, type SessionTally } from './delivery-tally.js';
import { formatReceivedRecord } from '../receiver/format-received.js';
import { createInterface } from 'node:readline';
import { demoEnvironment } from './demo-environment.js';
import { formatDaemonLine } from './daemon-log.js';
import { Patience } from './patience.js';
import { formatWaterfall, richestTrace } from '../receiver/waterfall.js';

/** The daemon is stopped once it delivered nothing new for this long (past the minimum wait). */
const STALL_MS = 30_000;

const HELP = `Usage: browser-telemetry-bridge demo [options]

Runs the simulator, a local OTLP receiver and the daemon, which follows every session tagged
demo=true by discovery (it is given no session id); creates more sessions while it runs, kills the
daemon with kill -9 halfway, restarts it, and checks that every event reached the receiver.
Ctrl-C stops the demo and its daemon and removes the demo's temporary state (exit code 130).
The daemon is configured by the demo alone: the bridge's variables exported in the shell
(BROWSER_*, BRIDGE_*, OTEL_*, proxies) are not passed to it, and the demo names them.

Options:
      --sessions N     simulated sessions at the start (default 3)
      --appear N       sessions created while the daemon runs, one a second (default 2)
      --events N       events per session (default 3000)
      --rate N         events per second per session (default 500)
      --no-crash       do not kill the daemon halfway
      --protocol P     http/protobuf (default), http/json or grpc
  -h, --help           show this help

Example:
  npm run demo -- --sessions 5 --events 10000 --rate 2000`;

const opts = {
  sessions: { type: 'string' },
  appear: { type: 'string' },
  events: { type: 'string' },
  rate: { type: 'string' },
  'no-crash': { type: 'boolean' },
  protocol: { type: 'string' },
} as const;

function positiveInt(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--${name} must be a positive integer`);
  return Number(v);
}

export async function main(argv: string[]): Promise<number> {
  const args = parseCommand(argv, opts, HELP);
  if (!args) return 0;
  const nSessions = positiveInt(args.values.sessions, 'sessions', 3);
  const appear = args.values.appear === '0' ? 0 : positiveInt(args.values.appear, 'appear', 2);
  const perSession = positiveInt(args.values.events, 'events', 3000);
  const rate = positiveInt(args.values.rate, 'rate', 500);
  const protocol = args.values.protocol ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json' && protocol !== 'grpc')
    throw new UsageError('--protocol must be http/protobuf, http/json or grpc');
  const crash = !args.values['no-crash'];
  const out = (s: string): boolean => process.stdout.write(s + '\n');

  const stateDir = mkdtempSync(join(tmpdir(), 'bridge-demo-'));
  const sim = await startSimulator({ keepaliveMs: 1000, bufferSize: Math.max(10_000, perSession * 2) });
  const receiver = await startReceiver(protocol === 'grpc' ? { grpc: {} } : {});
  const endpoint = protocol === 'grpc' ? receiver.grpcUrl! : receiver.url;
  const ids = Array.from({ length: nSessions }, (_, i) => `demo-session-${i + 1}`);
  // Every category, as a team that wants the whole picture configures its sessions (most are opt-in).
  // The tag is what the daemon's discovery selects on.
  const sessionOpts = { categories: 'all' as const, tags: { demo: 'true' } };
  for (const id of ids) sim.createSession(id, sessionOpts);
  out(
    `simulator  ${sim.url}   (${nSessions} session${nSessions === 1 ? '' : 's'}${appear ? `, ${appear} more appearing while the daemon runs` : ''}, ${perSession} events each at ${rate}/s${ids[1] ? `; ${ids[1]} gets one more, a frame broken on the wire` : ''})`,
  );
  out(`receiver   ${protocol === 'grpc' ? endpoint : receiver.logsUrl}   (${protocol})`);
  out(`state      ${stateDir}`);

  const { env, ignored } = demoEnvironment(process.env, {
    BROWSER_API_URL: sim.url,
    BROWSER_API_KEY: 'sim-key',
    // No session is named: the daemon follows whatever the service lists with the tag.
    BRIDGE_DISCOVER: 'true',
    BRIDGE_DISCOVER_TAGS: 'demo=true',
    BRIDGE_DISCOVER_INTERVAL: '1s',
    BRIDGE_STATE_DIR: stateDir,
    BRIDGE_LISTEN: 'off',
    BRIDGE_START: 'oldest',
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    // Spans too: one trace per page load (docs/traces.md); the end shows one as a waterfall.
    BRIDGE_TRACES: 'true',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  });
  if (ignored.length > 0)
    out(`ignored    ${ignored.join(', ')}   (exported in this shell; the demo configures its daemon itself)`);
  // Installed before the daemon starts, so no signal finds Node's default (an exit on the spot).
  // Ctrl-C (or SIGTERM) ends the demo at its next tick: the daemon it started is stopped while the
  // receiver still takes what it flushes, and the temporary state goes with it: the daemon must not
  // outlive the demo, reconnecting forever to a simulator that is gone. A second signal stops
  // everything at once.
  // The daemon runs in a process group of its own, so no signal of the terminal reaches it: a
  // closed terminal (SIGHUP) stops the demo as Ctrl-C does, Ctrl-\ (SIGQUIT) as a second Ctrl-C.
  // One Ctrl-C can arrive more than once: the terminal signals every process of its foreground
  // group, and a runner between it and the demo (npm, which passes signals on to the script it
  // runs) may send its own too. Signals within SAME_CTRL_C_MS of the first are that one Ctrl-C; a
  // person's second one comes later.
  let daemon: ChildProcess | undefined;
  let interrupted: NodeJS.Signals | undefined;
  let interruptedAt = 0;
  const stopAtOnce = (): never => {
    daemon?.kill('SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
    process.exit(130);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted !== undefined) {
      if (Date.now() - interruptedAt >= SAME_CTRL_C_MS) stopAtOnce();
      return;
    }
    interrupted = signal;
    interruptedAt = Date.now();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('SIGQUIT', stopAtOnce);
  // Whatever ends this process (an uncaught error too), the daemon in its own process group goes with it.
  process.once('exit', () => {
    if (daemon && daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
  });

  daemon = startDaemon(env);
  out(`daemon     pid ${daemon.pid} started, following every session tagged demo=true (BRIDGE_DISCOVER_TAGS)\n`);

  // One undecodable frame in the second session: the bridge reads that event from the service's archive.
  let injected = false;
  const producedTarget = perSession;
  // Exactly perSession events each: the simulator stops by itself, however late this loop looks.
  for (const id of ids) sim.session(id)!.produce(rate, perSession);

  let crashed = !crash;
  let deliveredAtRestart = new Map<string, number>();
  let exitCode: number | null = null;
  const started = Date.now();
  // At least the old budget (four times the run's length plus 30 s, a minute at least), then as long
  // as records keep arriving: a loaded machine is slow, not lossy (patience.ts).
  const patience = new Patience(started, Math.max(60_000, (perSession / rate) * 1000 * 4 + 30_000), STALL_MS);
  let ended = false;
  let appeared = 0;
  while (!patience.over(Date.now()) && interrupted === undefined) {
    await sleep(500);
    if (interrupted !== undefined) break;
    patience.observe(Date.now(), receiver.records.length);
    if (appeared < appear && Date.now() - started >= (appeared + 1) * 1000) {
      const id = `demo-late-${++appeared}`;
      // As many events as the sessions that were there from the start: the header announces one count.
      sim.createSession(id, sessionOpts).produce(rate, perSession);
      ids.push(id);
      say(out, `>>> a new session appears: ${id} (the daemon finds it in the service's list within two polls)\n`);
    }
    const delivered = receiver.records.length;
    const deliveredNow = countBySession(receiver, ids);
    const complete = new Set(
      tallyDelivery(receiver.records, ids, (id) => sim.session(id)!.lastSeq)
        .filter((t) => t.missing === 0)
        .map((t) => t.sessionId),
    );
    for (const id of ids) {
      const s = sim.session(id)!;
      if (s.emitted >= producedTarget && !s.ended) {
        // A real session outlives a daemon restart; ending it while no daemon reads it would lose
        // its unread tail for good (the service answers 404 once a session ended), so a session
        // ends only once the (restarted) daemon delivers from it again, or once everything it
        // produced has arrived (a short run may be delivered whole before the kill). Nor before
        // every late session appeared: the daemon may exit once nothing it follows is live.
        if (
          crashed &&
          appeared === appear &&
          ((deliveredNow.get(id) ?? 0) > (deliveredAtRestart.get(id) ?? 0) || complete.has(id))
        )
          s.end();
      }
    }
    if (!injected && ids[1] && sim.session(ids[1])!.emitted > producedTarget / 4) {
      sim.session(ids[1])!.injectMalformed('json');
      injected = true;
    }
    const tallies = tallyDelivery(receiver.records, ids, (id) => sim.session(id)!.lastSeq);
    printProgress(out, tallies, sim, ids);
    if (!crashed && delivered >= producedTarget * ids.length * 0.35) {
      if (!process.stdout.isTTY) printProgress(out, tallies, sim, ids, true);
      say(
        out,
        `\n>>> kill -9 ${daemon.pid}  (the daemon dies mid-stream; what it read but did not deliver is in its spool)\n`,
      );
      daemon.kill('SIGKILL');
      await waitExit(daemon);
      await sleep(1000);
      deliveredAtRestart = countBySession(receiver, ids);
      daemon = startDaemon(env);
      say(out, `>>> daemon restarted, pid ${daemon.pid}: it resumes from its checkpoints with Last-Event-ID\n`);
      crashed = true;
    }
    if (daemon.exitCode !== null) {
      exitCode = daemon.exitCode;
      ended = true;
      break;
    }
  }
  if (!ended) {
    daemon.kill('SIGTERM');
    exitCode = await waitExit(daemon);
  }
  if (interrupted !== undefined) {
    const tallies = tallyDelivery(receiver.records, ids, (id) => sim.session(id)!.lastSeq);
    say(out, `\n>>> ${interrupted}: the demo stops before its end; the daemon stopped, its temporary state is removed`);
    printProgress(out, tallies, sim, ids, true);
    await sim.close();
    await receiver.close();
    rmSync(stateDir, { recursive: true, force: true });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    return 130;
  }

  const tallies = tallyDelivery(receiver.records, ids, (id) => sim.session(id)!.lastSeq);
  say(out, '\nFinal:');
  printProgress(out, tallies, sim, ids, true);
  out('\nA few records as the collector received them:\n');
  for (const r of pickSamples(receiver)) out(formatReceivedRecord(r) + '\n');
  printTrace(out, receiver);

  const missing = tallies.reduce((n, t) => n + t.missing, 0);
  // `run --until-ended` exits by itself once every session ended and was delivered: a daemon stopped
  // at the deadline did not finish, whatever it delivered.
  const ok = ended && exitCode === 0 && missing === 0;
  const dup = tallies.reduce((n, t) => n + t.duplicates, 0);
  const elapsed = (Date.now() - started) / 1000;
  const repaired = injected ? " (the undecodable frame's event was read from the archive)" : '';
  out(
    ok
      ? `✓ every event delivered: ${tallies.reduce((n, t) => n + t.unique, 0)} records in ${elapsed.toFixed(1)} s, ` +
          `${tallies.reduce((n, t) => n + t.gapEvents, 0)} event(s) reported lost in gap records${repaired}, ` +
          `${dup} duplicate(s)${crash ? ' after the kill -9' : ''} (same log.record.uid, removable by the backend)`
      : describeFailure(tallies, ended ? exitCode : undefined, elapsed, patience.stallMs / 1000),
  );
  if (ok) {
    out(
      '\nNext: README.md, "Use it against a real service and a real collector": the same daemon with ' +
        'your API key and collector, or by hand against the bundled simulator first (`simulate`, `receive`, `run`).',
    );
  }

  await sim.close();
  await receiver.close();
  rmSync(stateDir, { recursive: true, force: true });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  return ok ? 0 : 1;
}

const WATERFALL_LINES = 25;

/** Signals this close after the first are copies of it (npm passing on the terminal's Ctrl-C). */
const SAME_CTRL_C_MS = 500;

/** One navigation's waterfall, and how many records point into traces. */
function printTrace(out: (s: string) => void, receiver: Receiver): void {
  const traceId = richestTrace(receiver.spans);
  if (traceId === undefined) {
    out('No spans arrived (traces are sent beside the records: see docs/traces.md).\n');
    return;
  }
  const inTraces = receiver.records.filter((r) => r.traceId !== undefined).length;
  out(
    `Spans: ${receiver.spans.length} received; ${inTraces} of ${receiver.records.length} records point at one (trace_id, span_id).`,
  );
  out(`One navigation as a trace backend would draw it (trace ${traceId}):\n`);
  const lines = formatWaterfall(receiver.spans, traceId);
  for (const line of lines.slice(0, WATERFALL_LINES)) out('  ' + line);
  if (lines.length > WATERFALL_LINES) out(`  … ${lines.length - WATERFALL_LINES} more spans`);
  out('');
}

/** The frames the daemons' log lines named so far (both runs: the restart reads some again). */
const framesNamed = new Set<string>();

function startDaemon(env: NodeJS.ProcessEnv): ChildProcess {
  // Re-run this same entry point (tsx from source, or dist/) with the same loader flags.
  const entry = process.argv[1]!;
  const child = spawn(process.execPath, [...process.execArgv, entry, 'run', '--until-ended'], {
    env,
    stdio: ['ignore', 'inherit', 'pipe'],
    // A process group of its own: Ctrl-C at the terminal reaches the demo alone, which stops the
    // daemon once (a second signal from both would make the daemon drop its delivery).
    detached: true,
  });
  // Its log (pino JSON on a pipe) as short lines between the demo's own, never inside the table.
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (line.trim() === '') return;
    const text = formatDaemonLine(line, framesNamed);
    if (text === undefined) return;
    process.stdout.write(text + '\n');
    drawn = 0;
  });
  return child;
}

function waitExit(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Lines of the live table on screen, so a terminal can redraw it in place (0 after other output). */
let drawn = 0;
let lastTable = '';

/**
 * On a terminal the table is redrawn in place whenever it changes; off one (a pipe, a CI log) it is
 * printed only when `force`d, at the kill and at the end, instead of once a tick.
 */
function printProgress(
  out: (s: string) => void,
  tallies: SessionTally[],
  sim: Simulator,
  ids: string[],
  force = false,
): void {
  if (!process.stdout.isTTY && !force) return;
  const table = renderTable(tallies, sim, ids);
  if (table === lastTable && !force) return;
  lastTable = table;
  if (process.stdout.isTTY && drawn > 0) process.stdout.write(`\x1b[${drawn}A\x1b[0J`);
  out(table);
  drawn = table.split('\n').length;
}

function say(out: (s: string) => void, text: string): void {
  out(text);
  drawn = 0;
}

function renderTable(tallies: SessionTally[], sim: Simulator, ids: string[]): string {
  const rows = tallies.map((t, i) => {
    const s = sim.session(ids[i]!)!;
    return (
      `  ${t.sessionId.padEnd(16)} emitted ${String(s.lastSeq).padStart(6)}  delivered ${String(t.unique).padStart(6)}  ` +
      `gaps ${String(t.gapRecords).padStart(2)} (${t.gapEvents} ev)  dup ${String(t.duplicates).padStart(4)}  ${s.ended ? 'ended' : 'live'}`
    );
  });
  return rows.join('\n');
}

function countBySession(receiver: Receiver, ids: string[]): Map<string, number> {
  const out = new Map(ids.map((id) => [id, 0]));
  for (const r of receiver.records) {
    const id = r.attributes['browser.session.id'] as string;
    out.set(id, (out.get(id) ?? 0) + 1);
  }
  return out;
}

function pickSamples(receiver: Receiver): Receiver['records'] {
  const want = ['browser.console_error', 'browser.network_response', 'browser.telemetry_gap'];
  const out: Receiver['records'] = [];
  for (const name of want) {
    const r = receiver.records.find((x) => x.eventName === name);
    if (r) out.push(r);
  }
  return out;
}
