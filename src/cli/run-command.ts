// `run`: the daemon. Follows the sessions, serves the HTTP surface, and on SIGTERM/SIGINT stops
// reading, delivers the spool within the grace period and closes the store (docs/design.md "Delivery
// semantics": clean shutdown). With --until-ended it exits 0 once every followed session ended and was delivered.
import { join, resolve } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { configWarnings } from '../config/warnings.js';
import type { BridgeConfig } from '../config/schema.js';
import { startBridge, type Bridge } from '../daemon/bridge.js';
import { watchConfigFile } from '../daemon/config-watcher.js';
import { createReloader } from '../daemon/reload.js';
import { describeControlAccess } from '../server/control-access.js';
import { listenHttp, type HttpSurface } from '../server/http-server.js';
import { createLogger, type Logger } from '../util/logger.js';
import { runEnvironment } from './run-environment.js';
import { openFileLimit, openFileWarning } from '../util/open-file-limit.js';
import { dirAccessProblem } from '../util/make-dirs.js';
import { BRIDGE_VERSION } from '../util/version.js';
import { displayStoreUrl, displayUrl } from '../mapping/display-url.js';
import { stateDirShapeProblem, stateDirWriteProblem, unusable } from './state-dir.js';
import { parseCommand } from '../util/command-line.js';
import { startStatusReporter, summarize } from './status-reporter.js';
import { untilEnded } from '../daemon/until-ended.js';

type Reloader = ReturnType<typeof createReloader>;

const HELP = `Usage: browser-telemetry-bridge run [--config FILE] [--until-ended]

Follows every configured session's telemetry stream and delivers each event to the OTLP collector.
Resumes where it left off after any restart; SIGTERM/SIGINT flush the spool within the grace period.
SIGHUP, or saving the configuration file, reloads the session list and the mapping options.

Options:
  -c, --config FILE   YAML configuration (default: $BRIDGE_CONFIG); environment variables override it
      --until-ended   exit 0 once every followed session has ended and everything is delivered;
                      with discovery, not before a first session was followed, and only when the
                      next poll of the list after the last end finds no new one
  -h, --help          show this help

Examples:
  BROWSER_API_URL=https://api.example.com BROWSER_API_KEY_FILE=/run/secrets/key \\
    BRIDGE_SESSIONS=sess_123,sess_456 OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 \\
    browser-telemetry-bridge run
  browser-telemetry-bridge run --config bridge.yaml --until-ended`;

export async function main(argv: string[]): Promise<number> {
  const args = parseCommand(argv, { config: { type: 'string', short: 'c' }, 'until-ended': { type: 'boolean' } }, HELP);
  if (!args) return 0;
  const config = loadConfig(args.values.config);
  const { insecure, logLevel } = runEnvironment();
  const log = createLogger({ level: logLevel });
  for (const warning of configWarnings(config, process.env)) log.warn(warning);
  const tooFewFiles = openFileWarning(openFileLimit(), config.maxSessions);
  if (tooFewFiles) log.warn(tooFewFiles);

  // Signals first: a SIGTERM that arrives while the store opens or the port binds must still mean
  // "shut down cleanly", not Node's default of dying mid-write.
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  // Last resort: a bug that escapes every handler ends the process cleanly (stop reading, commit,
  // deliver what the grace period allows) instead of killing it mid-write; the spool keeps the rest.
  const onFatal = (err: unknown): void => {
    log.fatal({ error: (err as Error)?.stack ?? String(err) }, 'unexpected error; shutting down');
    resolveDone(1);
  };
  process.on('unhandledRejection', onFatal);
  process.on('uncaughtException', onFatal);
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      // A second signal means "now": everything unsent is still safely spooled.
      log.warn({ signal: sig }, 'second signal: exiting without waiting for delivery');
      process.exit(130);
    }
    // A person who pressed Ctrl-C with the collector down waits the whole grace period: say how
    // long, and that a second signal ends it at no loss.
    const grace = config.shutdownGraceMs;
    log.info(
      { signal: sig, graceMs: grace },
      `shutting down: stop reading, deliver the spool for up to ${grace % 1000 === 0 ? `${grace / 1000} s` : `${grace} ms`} ` +
        '(a second Ctrl-C or SIGTERM exits at once; what is not delivered stays spooled)',
    );
    resolveDone(0);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Reload: SIGHUP (and a changed file) re-reads the session list and mapping options. Installed
  // now, before anything starts, and kept until exit: SIGHUP's default action would otherwise kill
  // the daemon during start-up or in the middle of its shutdown.
  let reloader: Reloader | undefined;
  process.on('SIGHUP', () => void reloader?.reload('SIGHUP'));

  // The shared store keeps no state here; the embedded one must be able to write it.
  const stateProblem =
    config.store.kind === 'postgres' ? stateDirShapeProblem(config.stateDir) : stateDirWriteProblem(config.stateDir);
  if (stateProblem) return fail(stateProblem);

  // The port before the sessions: a port in use must stop start-up before any stream is opened.
  let http: HttpSurface | undefined;
  if (config.listen) {
    try {
      http = await listenHttp(config.listen, log, {
        token: config.controlToken,
        insecure,
        allowedHosts: config.controlAllowedHosts,
      });
    } catch (err) {
      return fail(`cannot listen on ${config.listen.host}:${config.listen.port} (BRIDGE_LISTEN): ${listenError(err)}`);
    }
  }
  logStartup(log, config);
  // A directory that existed before: the bridge narrows the files it creates, not the operator's directory.
  const access = config.store.kind === 'postgres' ? undefined : dirAccessProblem(resolve(config.stateDir));
  if (access) log.warn({ stateDir: resolve(config.stateDir) }, access);
  let bridge: Bridge;
  try {
    bridge = await startBridge(config, log);
  } catch (err) {
    await http?.close();
    // The volume filled between the check above and the store's first writes: the same sentence.
    if ((err as { code?: string }).code === 'SQLITE_FULL' && config.store.kind !== 'postgres')
      return fail(unusable(resolve(config.stateDir), err));
    throw err;
  }
  if (http) {
    http.attach(bridge);
    const line = `HTTP surface listening on ${http.url}: /healthz /readyz /metrics open; ${describeControlAccess(http.control)}`;
    if (http.control.mode === 'open-insecure') log.warn({ url: http.url, control: http.control.mode }, line);
    else log.info({ url: http.url, control: http.control.mode }, line);
  } else {
    log.info('HTTP surface off (BRIDGE_LISTEN=off): no health, metrics or control endpoints');
  }

  const reporter = startStatusReporter(() => summarize(bridge), log);
  reloader = createReloader(bridge);
  const watcher = config.configPath
    ? watchConfigFile(config.configPath, () => void reloader?.reload('configuration file changed'), { log })
    : undefined;
  if (args.values['until-ended']) {
    // With discovery: not before a first session was followed, nor between two sessions of a
    // series (daemon/until-ended.ts).
    const { tags, query } = config.discovery;
    void untilEnded({
      run: bridge.supervisor.allEnded,
      ...(bridge.discovery ? { discovery: bridge.discovery } : {}),
      waiting: () =>
        log.info(
          { tags, query },
          '--until-ended: no session to follow yet; waiting for discovery to find one (Ctrl-C to stop)',
        ),
    }).then(() => {
      const unknown = bridge.supervisor
        .status()
        .filter((s) => s.state === 'unknown')
        .map((s) => s.id);
      if (unknown.length > 0) {
        log.error(
          { sessions: unknown },
          `the service does not know ${unknown.length} followed session(s): ${unknown.join(', ')}; everything else was delivered`,
        );
        process.stderr.write(
          `error: the service does not know session(s) ${unknown.join(', ')} (never existed: a mistyped id?)\n`,
        );
        resolveDone(1);
        return;
      }
      log.info('every followed session ended and everything was delivered');
      resolveDone(0);
    });
  }
  // A daemon runs until it is told to stop. With nothing to follow, no HTTP surface and no
  // configuration file to watch, nothing else held the event loop, and `run` exited 0 at once
  // without a word (a SIGHUP reload or the control API could still have given it sessions).
  const keepAlive = setInterval(() => {}, 2 ** 30);
  const code = await done;
  clearInterval(keepAlive);
  reloader.close();
  watcher?.close();
  reporter.stop();
  await http?.close();
  await bridge.shutdown();
  log.flush();
  // Everything durable is closed; an abandoned request to a collector that never answers must not
  // keep the process alive past the grace period (the timer is unref'd: a clean exit is not delayed).
  setTimeout(() => process.exit(code), 500).unref();
  return code;
}

/** One line on stderr, exit code 1: start-up could not begin. */
function fail(message: string): number {
  process.stderr.write(`error: ${message}\n`);
  return 1;
}

function listenError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EADDRINUSE') return 'the address is already in use (another bridge or program has this port)';
  if (e.code === 'EACCES') return 'permission denied (ports below 1024 need privileges)';
  if (e.code === 'EADDRNOTAVAIL') return 'this host has no such address';
  return e.code ?? e.message;
}

/** What this daemon is and where it talks to, once, before it starts following sessions. */
function logStartup(log: Logger, config: BridgeConfig): void {
  const stateDir = resolve(config.stateDir);
  const store =
    config.store.kind === 'postgres'
      ? `the shared PostgreSQL store ${displayStoreUrl(config.store.url)}`
      : `${join(stateDir, 'bridge.db')} (sqlite)`;
  log.info(
    {
      version: BRIDGE_VERSION,
      service: displayUrl(config.upstream.url),
      collector: displayUrl(config.exporter.url),
      protocol: config.exporter.protocol,
      compression: config.exporter.compression,
      stateDir,
      store: config.store.kind === 'postgres' ? 'postgres' : 'sqlite',
      sessions: config.sessions.length,
      config: config.configPath ?? 'environment',
      ...(config.discovery.enabled
        ? {
            discovery: {
              tags: config.discovery.tags,
              query: config.discovery.query,
              intervalMs: config.discovery.intervalMs,
            },
          }
        : {}),
    },
    `browser-telemetry-bridge ${BRIDGE_VERSION}: ${config.sessions.length} configured session(s)${config.discovery.enabled ? ' plus discovery' : ''} from ${displayUrl(config.upstream.url)} to ${displayUrl(config.exporter.url)} (${config.exporter.protocol}); state in ${store}`,
  );
}
