// `run`: the daemon. Follows the sessions, serves the HTTP surface, and on SIGTERM/SIGINT stops
// reading, delivers the spool within the grace period and closes the store (DESIGN.md "Delivery
// semantics" 6). With --until-ended it exits 0 once every followed session ended and was delivered.
import { loadConfig } from '../config/load-config.js';
import { configWarnings } from '../config/warnings.js';
import { startBridge } from '../pipeline/bridge.js';
import { watchConfigFile } from '../pipeline/config-watcher.js';
import { createReloader } from '../pipeline/reload.js';
import { startHttpServer, type HttpSurface } from '../server/http-server.js';
import { createLogger } from '../util/logger.js';
import { parseCommand } from './usage.js';
import { startStatusReporter } from './status-reporter.js';

const HELP = `Usage: browser-telemetry-bridge run [--config FILE] [--until-ended]

Follows every configured session's telemetry stream and delivers each event to the OTLP collector.
Resumes where it left off after any restart; SIGTERM/SIGINT flush the spool within the grace period.
SIGHUP, or saving the configuration file, reloads the session list and the mapping options.

Options:
  -c, --config FILE   YAML configuration (default: $BRIDGE_CONFIG); environment variables override it
      --until-ended   exit 0 once every followed session has ended and everything is delivered
  -h, --help          show this help

Examples:
  BROWSER_API_URL=https://api.example.com BROWSER_API_KEY_FILE=/run/secrets/key \\
    BRIDGE_SESSIONS=sess_123,sess_456 OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 \\
    browser-telemetry-bridge run
  browser-telemetry-bridge run --config bridge.yaml --until-ended`;

export async function main(argv: string[]): Promise<number> {
  const args = parseCommand(argv, { config: { type: 'string', short: 'c' }, 'until-ended': { type: 'boolean' } }, HELP);
  if (!args) return 0;
  const config = loadConfig(args.values.config as string | undefined);
  const log = createLogger();
  for (const warning of configWarnings(config)) log.warn(warning);
  const bridge = startBridge(config, log);
  let http: HttpSurface | undefined;
  if (config.listen) {
    try {
      http = await startHttpServer(bridge, config.listen, log);
      log.info({ url: http.url }, 'HTTP surface listening (/healthz /readyz /metrics /v1/sessions)');
    } catch (err) {
      log.error({ error: (err as Error).message, listen: config.listen }, 'cannot listen for the HTTP surface');
      await bridge.shutdown(0);
      return 1;
    }
  }
  const reporter = startStatusReporter(bridge, log);
  // Reload: SIGHUP (and a changed file) re-reads the session list and mapping options; an invalid
  // file is logged and ignored. The handler stays installed until exit: SIGHUP's default action
  // would otherwise kill the daemon in the middle of its shutdown.
  const reloader = createReloader(bridge);
  process.on('SIGHUP', () => void reloader.reload('SIGHUP'));
  const watcher = config.configPath
    ? watchConfigFile(config.configPath, () => void reloader.reload('configuration file changed'), { log })
    : undefined;

  const done = new Promise<number>((resolve) => {
    // Last resort: a bug that escapes every handler ends the process cleanly (stop reading, commit,
    // deliver what the grace period allows) instead of killing it mid-write; the spool keeps the rest.
    const onFatal = (err: unknown): void => {
      log.fatal({ error: (err as Error)?.stack ?? String(err) }, 'unexpected error; shutting down');
      resolve(1);
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
      log.info({ signal: sig, graceMs: config.shutdownGraceMs }, 'shutting down: stop reading, deliver the spool');
      resolve(0);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    if (args.values['until-ended']) {
      void bridge.supervisor.untilAllEnded().then(() => {
        log.info('every followed session ended and everything was delivered');
        resolve(0);
      });
    }
  });
  const code = await done;
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
