// `check`: "is telemetry going to flow, and if not, why?" answered before starting the daemon.
// Order: configuration → service (reachable, key accepted) → each configured session (its stream
// opens) → each configured pool (lookup, telemetry findings) → collector (an empty export) → state
// directory. The first request to the service doubles as the reachability and authentication
// check; when it cannot connect or the key is refused, the per-session and per-pool checks are
// skipped (they would all fail for the same reason). Exit codes: 0 all ✓, 1 any ✗, 2 invalid
// configuration. Secrets never appear: no headers, no keys, URLs with credentials masked.
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../config/load-config.js';
import { runEnvironment } from './run-environment.js';
import { ConfigError, ConfigErrors } from '../config/errors.js';
import { printable } from '../util/printable.js';
import type { BridgeConfig } from '../config/schema.js';
import { configWarnings } from '../config/warnings.js';
import { paint, useColor } from './ansi.js';
import { probeSharedStore } from './check-store.js';
import { displayUrl } from '../mapping/display-url.js';
import {
  probeCollector,
  probeNoRoute,
  probePool,
  probeSession,
  probeStateDir,
  type ServiceAnswer,
} from './check-probes.js';
import { probeTracesEndpoint } from './check-traces.js';
import { answersLikeNoRoute, lacksErrorShape, notTheServiceText, wrongBasePathText } from './service-identity.js';
import { formatCheckItem, formatChecklistFooter, type CheckItem } from './checklist.js';
import type { UpstreamClient } from '../upstream/client.js';
import { createUpstreamClient } from './upstream-config.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { probeRunningBridge } from './check-running-bridge.js';
import { probeSpoolMode } from './check-spool.js';
import { stateDirBusy, stateDirShapeProblem } from './state-dir.js';
import { parseCommand } from '../util/command-line.js';
import { probeDiscovery } from './discovery-probe.js';

const HELP = `Usage: browser-telemetry-bridge check [--config FILE]

Checks, without starting the daemon, everything delivery depends on, and prints a ✓/✗ list with
the reason for each ✗:
  configuration   the file and environment are valid (the same rules as run)
  service         the session service is reachable, answers as the session service at this base
                  path (not another program, not a wrong path prefix) and accepts the API key
  session <id>    each configured session's stream opens, or it ended (the service still knows it:
                  ✓, run delivers its tail from the archive); ✗ when the service does not know it;
                  warns when the session exports OTLP itself
  pool <ref>      each configured pool can be looked up; warns when its telemetry is off or it
                  exports OTLP itself
  collector       the OTLP endpoint accepts an empty export with the configured protocol,
                  headers and compression
  traces          (when traces are enabled) the traces endpoint accepts an empty span export
  state dir       the state directory is writable (or can be created) and its volume has room for
                  the state database; when a running bridge holds it, that bridge's /readyz (on
                  BRIDGE_LISTEN) is asked how it is instead
  spool           which spool.mode runs, and whether the service's archive answers (asked for the
                  first configured session, unless the service check failed): without it, overflow
                  mode turns a crash into gap records
  discovery       (when enabled) how many live sessions the selector matches in the service's list now
Exit codes: 0 all passed, 1 something failed, 2 invalid configuration. No secret is printed.

Options:
  -c, --config FILE       YAML configuration (default: $BRIDGE_CONFIG); environment variables override it
      --color, --no-color force colours on or off (default: on a terminal, unless NO_COLOR is set)
  -h, --help              show this help

Examples:
  browser-telemetry-bridge check --config bridge.yaml
  BROWSER_API_URL=https://api.example.com BROWSER_API_KEY_FILE=/run/secrets/key \\
    BRIDGE_SESSIONS=sess_123 OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 browser-telemetry-bridge check
  browser-telemetry-bridge check && browser-telemetry-bridge run    # in a container entrypoint`;

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
} as const;

/** Sessions are probed this many at a time: a thousand configured sessions must not mean a thousand sockets. */
const CONCURRENCY = 8;

type Target = { kind: 'session'; id: string } | { kind: 'pool'; ref: string };

export async function main(argv: string[]): Promise<number> {
  const args = parseCommand(argv, OPTIONS, HELP);
  if (!args) return 0;
  const p = paint(
    useColor(process.stdout, { color: args.values.color === true, noColor: args.values['no-color'] === true }),
  );
  const print = (line: string): void => void process.stdout.write(line + '\n');

  let config: BridgeConfig;
  try {
    config = loadConfig(args.values.config);
    runEnvironment();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // Several problems: the count on the ✗ line, then one line each below it, as run prints them.
    const problems = err instanceof ConfigErrors ? err.problems : [];
    const detail = problems.length > 0 ? `${problems.length} problems:` : err.message;
    print(formatCheckItem({ label: 'configuration', status: 'fail', detail }, 13, p));
    for (const q of problems) print(`${' '.repeat(17)}${printable(q.message)}`);
    return 2;
  }

  const pools = [...new Set(config.sessions.map((s) => s.pool).filter((x): x is string => x !== undefined))];
  const targets: Target[] = [
    ...config.sessions.map((s) => ({ kind: 'session' as const, id: s.id })),
    ...pools.map((ref) => ({ kind: 'pool' as const, ref })),
  ];
  const labels = ['configuration', 'service', 'collector', 'state dir', 'spool', 'discovery', ...targets.map(label)];
  const width = Math.max(...labels.map((l) => l.length));
  const items: CheckItem[] = [];
  const emit = (item: CheckItem): void => {
    items.push(item);
    print(formatCheckItem(item, width, p));
  };

  const source = config.configPath ? `${config.configPath} + environment` : 'environment';
  const notes = configWarnings(config, process.env).map((text) => ({ level: 'warn' as const, text }));
  emit({
    label: 'configuration',
    status: 'ok',
    detail: `${source}: ${count(config.sessions.length, 'session')}, ${count(pools.length, 'pool')}`,
    notes,
  });

  const client = createUpstreamClient(config, 'check');
  let spoolItem: CheckItem | undefined;
  try {
    await checkService(client, config, targets, emit);
    const serviceFailed = items.some((i) => i.label === 'service' && i.status === 'fail');
    if (config.discovery.enabled) {
      emit(
        serviceFailed
          ? { label: 'discovery', status: 'skip', detail: 'skipped: the service check failed' }
          : await probeDiscovery(client, config.discovery),
      );
    }
    spoolItem = await probeSpoolMode(client, config, serviceFailed ? 'the service check failed' : undefined);
  } finally {
    await client.close();
  }
  emit(await probeCollector(config.exporter));
  if (config.traces.enabled) emit(await probeTracesEndpoint(config));
  emit(config.store.kind === 'postgres' ? await probeSharedStore(config.store) : await stateDirItem(config));
  if (spoolItem) emit(spoolItem);

  print('');
  print(formatChecklistFooter(items, p));
  return items.some((i) => i.status === 'fail') ? 1 : 0;
}

async function checkService(
  client: UpstreamClient,
  config: BridgeConfig,
  targets: Target[],
  emit: (i: CheckItem) => void,
): Promise<void> {
  const where = displayUrl(config.upstream.url);
  const first = targets[0];
  // Without a session or pool, authentication is checked with the lookup of a pool that cannot exist:
  // the service checks the bearer token first, so its 404 (or 403) means "key accepted".
  const authRef = `bridge-check-${randomBytes(6).toString('hex')}`;
  const firstAnswer = first ? await probe(client, first, config) : await probePool(client, authRef);
  if (firstAnswer.kind === 'network') {
    emit({ label: 'service', status: 'fail', detail: `cannot reach ${where}: ${firstAnswer.message}` });
    for (const t of targets) emit({ label: label(t), status: 'skip', detail: 'skipped: the service is unreachable' });
    return;
  }
  if (firstAnswer.kind === 'http' && firstAnswer.status === 401) {
    emit({
      label: 'service',
      status: 'fail',
      detail: `${where} rejected the API key: ${firstAnswer.error.code}: ${firstAnswer.error.message} (check BROWSER_API_KEY / BROWSER_API_KEY_FILE)`,
    });
    for (const t of targets) emit({ label: label(t), status: 'skip', detail: 'skipped: the API key was rejected' });
    return;
  }
  const route = routeOf(first ?? { kind: 'pool', ref: authRef });
  if (firstAnswer.kind === 'http' && lacksErrorShape(firstAnswer)) {
    emit({ label: 'service', status: 'fail', detail: notTheServiceText(where, route, firstAnswer) });
    for (const t of targets)
      emit({ label: label(t), status: 'skip', detail: 'skipped: this is not the session service' });
    return;
  }
  if (firstAnswer.kind === 'http' && firstAnswer.status === 404) {
    // A 404 from a known route: the session (or pool) is missing, or the route is not here at all.
    const names = [first ? (first.kind === 'session' ? first.id : first.ref) : authRef];
    const noRoute = await probeNoRoute(client, config.upstream.connectTimeoutMs);
    if (noRoute && answersLikeNoRoute(firstAnswer, noRoute, names)) {
      emit({ label: 'service', status: 'fail', detail: wrongBasePathText(where, route, firstAnswer) });
      for (const t of targets) emit({ label: label(t), status: 'skip', detail: 'skipped: wrong base path' });
      return;
    }
  }
  if (!first && firstAnswer.kind === 'http' && firstAnswer.status !== 404 && firstAnswer.status !== 403) {
    // Only the authentication probe ran, and it failed otherwise (5xx, 429, ...).
    emit({ label: 'service', status: 'fail', detail: `${where}: ${firstAnswer.item.detail}` });
    return;
  }
  emit({ label: 'service', status: 'ok', detail: `${where} reachable, API key accepted` });
  const rest = await mapLimit(targets.slice(1), CONCURRENCY, (t) => probe(client, t, config));
  for (const answer of [firstAnswer, ...rest].slice(0, targets.length)) emit(answer.item);
}

/** The state directory; one a running bridge holds is checked through that bridge (check-running-bridge.ts). */
async function stateDirItem(config: BridgeConfig): Promise<CheckItem> {
  const abs = resolve(config.stateDir);
  if (stateDirShapeProblem(abs) === undefined && existsSync(abs) && stateDirBusy(abs)) {
    return probeRunningBridge(abs, config.listen, config.upstream.connectTimeoutMs);
  }
  return probeStateDir(config.stateDir);
}

function routeOf(t: Target): string {
  return t.kind === 'session' ? `GET /browsers/${t.id}/telemetry/stream` : `GET /browser_pools/${t.ref}`;
}

function probe(client: UpstreamClient, t: Target, config: BridgeConfig): Promise<ServiceAnswer> {
  return t.kind === 'session' ? probeSession(client, t.id, config.exporter.url) : probePool(client, t.ref);
}

function label(t: Target): string {
  return t.kind === 'session' ? `session ${t.id}` : `pool ${t.ref}`;
}

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Runs fn over items with at most `limit` in flight; results in input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
