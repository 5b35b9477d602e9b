// `validate`: the configuration checked offline, like `otelcol validate`. The same loader and the
// same messages as `run` (an invalid configuration prints `invalid configuration: <key>: …`, every
// problem of the file at once, and exits 2), but nothing is contacted and nothing is opened: no service, no collector, no state
// directory. A CI job or a container entrypoint can run it before `run`. Warnings (unknown event
// types, nothing to follow) are printed and do not fail the check.
import { loadConfig } from '../config/load-config.js';
import type { BridgeConfig } from '../config/schema.js';
import { configWarnings, followWarnings } from '../config/warnings.js';
import { displayStoreUrl, displayUrl } from '../mapping/display-url.js';
import { parseCommand } from '../util/command-line.js';
import { describeSelector } from './discovery-probe.js';
import { runEnvironment } from './run-environment.js';

const HELP = `Usage: browser-telemetry-bridge validate [--config FILE]

Validates the configuration (file, \${env:VAR} references and environment variables) with the same
rules and messages as run, without contacting the service or the collector and without touching the
state directory. Prints a one-line summary and any warnings.
Exit codes: 0 valid (warnings included), 2 invalid (every problem, one line each naming its key).

Options:
  -c, --config FILE   YAML configuration (default: $BRIDGE_CONFIG); environment variables override it
  -h, --help          show this help

Examples:
  browser-telemetry-bridge validate --config bridge.yaml
  browser-telemetry-bridge validate --config bridge.yaml && browser-telemetry-bridge run --config bridge.yaml`;

export async function main(argv: string[]): Promise<number> {
  const args = parseCommand(argv, { config: { type: 'string', short: 'c' } }, HELP);
  if (!args) return 0;
  const config = loadConfig(args.values.config);
  runEnvironment();
  const warnings = [...configWarnings(config, process.env), ...followWarnings(config)];
  const out: string[] = [summary(config), ...warnings.map((w) => `warning: ${w}`)];
  process.stdout.write(out.join('\n') + '\n');
  return 0;
}

/** What the bridge would do with this configuration, in one line; no secret is shown. */
export function summary(c: BridgeConfig): string {
  const source = c.configPath ? `${c.configPath} + environment` : 'environment';
  const named = `${c.sessions.length} session${c.sessions.length === 1 ? '' : 's'}`;
  const sessions = c.discovery.enabled
    ? `${named} plus discovery (${describeSelector(c.discovery)}, every ${c.discovery.intervalMs / 1000} s)`
    : named;
  const listen = c.listen ? `listen ${c.listen.host}:${c.listen.port}` : 'no HTTP surface';
  const state = c.store.kind === 'postgres' ? `shared store ${displayStoreUrl(c.store.url)}` : `state ${c.stateDir}`;
  return (
    `configuration is valid (${source}): ${sessions} from ${displayUrl(c.upstream.url)}, ` +
    `collector ${displayUrl(c.exporter.url)} (${c.exporter.protocol}), ${state}, ${listen}`
  );
}
