// The simulator of the session service as a process: `browser-telemetry-bridge simulate …`, or
// directly (tests, bench): npx tsx src/devkit/simulator/main.ts --port 0 --sessions a,b,c --rate 100
// Prints one JSON line {"url": ...} on stdout once listening (what scripts read) and a readable
// hint on stderr; drive it further through /_sim/. SIGTERM / SIGINT close the server and exit 0.
import { parseArgs } from 'node:util';
import { startSimulator } from './simulator.js';
import { makePool } from './pools.js';
import { runIfEntryPoint } from '../../util/entry-point.js';
import { listenProblem } from '../../util/listen-problem.js';
import { parseDurationMs } from '../../config/readers.js';
import { SessionSpawner } from './session-spawner.js';

export const HELP = `Usage: browser-telemetry-bridge simulate [options]

Runs a simulator of the browser session service: the telemetry stream (SSE, keepalives, bounded
replay buffer, Last-Event-ID resume, session end as a reset then 502 then 404, service restarts),
the telemetry archive, pool lookups and realistic events of every type. Like the real service, a
session captures control, connection, system and captcha events unless --categories opts in to
more. Point tail, check, run or top at it to try them without an account. It accepts the API key
"sim-key" unless --api-key says otherwise. Drive it further through its control API (/_sim/).

Options:
      --host HOST          listen address (default 127.0.0.1)
      --port PORT          listen port (default 0: any free port; the URL is printed)
      --sessions LIST      sessions to create, comma-separated, e.g. demo-1,demo-2
      --rate N             events per second each session produces (default 0: none)
      --buffer N           replay buffer size in events (default 8192)
      --archive N          events each session's archive keeps (default 200000; 0: no archive route)
      --categories LIST    categories the created sessions opt in to, comma-separated, or "all"
      --keepalive-ms MS    keepalive comment interval
      --seed N             seed of the event generator (same seed, same events)
      --api-key KEY        accepted bearer token (repeatable or comma-separated)
      --pool NAME          put the created sessions in a pool of this name, created here (look it up
                           with \`pool NAME\`; without --pool the simulator has no pools)
      --tags LIST          tags of the created sessions, e.g. team=a,env=dev (GET /browsers filters on them)
      --create-every DUR   create a new session every DUR (e.g. 2s), with --tags, producing at --rate
      --create-lifetime DUR  sessions made by --create-every end after DUR (default: they live on)
      --create-max N       stop creating after N sessions
      --no-list            serve no session list (GET /browsers answers 404), as an older service
  -h, --help               show this help

Prints {"url": "http://…"} on stdout once listening. Ctrl-C stops it.

Example:
  browser-telemetry-bridge simulate --port 8080 --sessions demo-1 --rate 5 --pool my-pool &
  BROWSER_API_URL=http://127.0.0.1:8080 BROWSER_API_KEY=sim-key browser-telemetry-bridge tail demo-1
  BROWSER_API_URL=http://127.0.0.1:8080 BROWSER_API_KEY=sim-key browser-telemetry-bridge pool my-pool

Sessions appearing over time, followed by a bridge that names none (discovery):
  browser-telemetry-bridge simulate --port 8080 --create-every 2s --tags team=a --rate 5 &
  BROWSER_API_URL=http://127.0.0.1:8080 BROWSER_API_KEY=sim-key BRIDGE_DISCOVER=true \\
    BRIDGE_DISCOVER_TAGS=team=a browser-telemetry-bridge run`;

class ArgError extends Error {}

function duration(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const ms = parseDurationMs(raw.trim());
  if (ms === undefined || ms <= 0) throw new ArgError(`--${name} must be a duration such as 2s or 500ms`);
  return ms;
}

function tagList(raw: string | undefined): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  const out: Record<string, string> = {};
  for (const part of raw.split(',').filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new ArgError('--tags must be name=value pairs, comma-separated');
    out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}

function num(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new ArgError(`--${name} must be a non-negative number`);
  return n;
}

/** Runs until SIGTERM/SIGINT; resolves to the exit code (2 for bad options). */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        sessions: { type: 'string' },
        rate: { type: 'string' },
        buffer: { type: 'string' },
        archive: { type: 'string' },
        categories: { type: 'string' },
        'keepalive-ms': { type: 'string' },
        seed: { type: 'string' },
        'api-key': { type: 'string', multiple: true },
        pool: { type: 'string' },
        tags: { type: 'string' },
        'create-every': { type: 'string' },
        'create-lifetime': { type: 'string' },
        'create-max': { type: 'string' },
        'no-list': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`simulator: ${(err as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  let port, bufferSize, archiveSize, keepaliveMs, seed, rate, createEvery, createLifetime, createMax, tags;
  try {
    createEvery = duration('create-every', values['create-every']);
    createLifetime = duration('create-lifetime', values['create-lifetime']);
    createMax = num('create-max', values['create-max']);
    tags = tagList(values.tags);
    port = num('port', values.port);
    bufferSize = num('buffer', values.buffer);
    archiveSize = num('archive', values.archive);
    keepaliveMs = num('keepalive-ms', values['keepalive-ms']);
    seed = num('seed', values.seed);
    rate = num('rate', values.rate) ?? 0;
  } catch (err) {
    process.stderr.write(`simulator: ${(err as Error).message}\n`);
    return 2;
  }
  const apiKeys = values['api-key']?.flatMap((k) => k.split(',')).filter(Boolean);

  let sim: Awaited<ReturnType<typeof startSimulator>>;
  try {
    sim = await startSimulator({
      ...(values.host !== undefined ? { host: values.host } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(bufferSize !== undefined ? { bufferSize } : {}),
      ...(archiveSize !== undefined ? { archiveSize } : {}),
      ...(keepaliveMs !== undefined ? { keepaliveMs } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(apiKeys && apiKeys.length > 0 ? { apiKeys } : {}),
      ...(values['no-list'] ? { listRoute: false } : {}),
    });
  } catch (err) {
    process.stderr.write(`simulator: ${listenProblem(err, values.host ?? '127.0.0.1', port ?? 0, '--port')}\n`);
    return 1;
  }
  const categories =
    values.categories === undefined
      ? undefined
      : values.categories === 'all'
        ? ('all' as const)
        : values.categories.split(',').filter(Boolean);
  const ids = (values.sessions ?? '').split(',').filter(Boolean);
  // A pool is otherwise made with its first session: `--pool NAME` alone must still answer `pool NAME`.
  if (values.pool !== undefined && ids.length === 0) sim.addPool(makePool({ name: values.pool }));
  for (const id of ids) {
    const s = sim.createSession(id, {
      ...(values.pool !== undefined ? { pool: values.pool } : {}),
      ...(categories !== undefined ? { categories } : {}),
      ...(tags ? { tags } : {}),
    });
    if (rate > 0) s.produce(rate);
  }
  const spawner =
    createEvery === undefined
      ? undefined
      : new SessionSpawner(sim, {
          everyMs: createEvery,
          rate,
          ...(tags ? { tags } : {}),
          ...(createLifetime !== undefined ? { lifetimeMs: createLifetime } : {}),
          ...(createMax !== undefined ? { max: createMax } : {}),
          ...(values.pool !== undefined ? { pool: values.pool } : {}),
          ...(categories !== undefined ? { categories } : {}),
        });
  spawner?.start();
  process.stdout.write(JSON.stringify({ url: sim.url }) + '\n');
  process.stderr.write(
    `session service simulator on ${sim.url} (API key: ${apiKeys?.[0] ?? 'sim-key'}; sessions: ${ids.join(', ') || 'none'}${values.pool !== undefined ? `; pool: ${values.pool}` : ''}${createEvery !== undefined ? `; a new one every ${values['create-every']}${tags ? ` tagged ${values.tags}` : ''}` : ''}); Ctrl-C stops it\n`,
  );

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      spawner?.stop();
      sim.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

runIfEntryPoint(import.meta.url, main, 'simulator');
