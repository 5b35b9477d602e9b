// `pool <id_or_name>`: one browser pool (GET /browser_pools/{id_or_name}) as a readable summary, or
// with -o json the resource the service answered, every member kept (indented for reading).
// Exit codes: 0 found, 1 the service said no (401, 403, 404, ...) or could not be reached, 2 bad
// usage or configuration.
import { describeApiError } from '../upstream/api-error.js';
import { parsePool } from '../upstream/browser-pool.js';
import { paint, useColor } from './ansi.js';
import { formatPoolSummary } from './pool-summary.js';
import { displayUrl } from '../mapping/display-url.js';
import { printable, printableDeep, quotedExcerpt, terminalJson } from '../util/printable.js';
import { poolRefProblem } from '../config/sessions.js';
import { createUpstreamClient, loadUpstreamConfig } from './upstream-config.js';
import { parseCommand, UsageError } from '../util/command-line.js';

const HELP = `Usage: browser-telemetry-bridge pool <id_or_name> [options]

Shows a browser pool: name, id, region, capacity, which telemetry categories its browsers capture,
the cdp_command methods it excludes, whether it exports OTLP itself, profile and extensions, plus
warnings that matter to the bridge (every category off: empty streams; OTLP export on: events
delivered twice).

Options:
  -o, --output FORMAT     summary (default) or json: the pool resource as the service sent it (indented)
      --color, --no-color force colours on or off (default: on a terminal, unless NO_COLOR is set)
  -c, --config FILE       configuration file (default: $BRIDGE_CONFIG); only the service URL and key
                          are needed: BROWSER_API_URL and BROWSER_API_KEY or BROWSER_API_KEY_FILE
  -h, --help              show this help

Exit codes: 0 shown, 1 not found / refused (401, 403, 404) / unreachable, 2 bad usage or configuration.

Examples:
  browser-telemetry-bridge pool scraper-pool
  browser-telemetry-bridge pool pool_8f3a2c -o json | jq '.browser_pool_config.telemetry'`;

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  output: { type: 'string', short: 'o' },
  color: { type: 'boolean' },
  'no-color': { type: 'boolean' },
} as const;

const HINTS: Record<number, string> = {
  401: 'the API key was rejected: check BROWSER_API_KEY / BROWSER_API_KEY_FILE',
  403: 'the API key may not read this pool',
  404: 'no pool with this id or name',
};

export async function main(argv: string[]): Promise<number> {
  const args = parseCommand(argv, OPTIONS, HELP, 1);
  if (!args) return 0;
  const ref = args.positionals[0];
  if (ref === undefined || ref === '') throw new UsageError(`pool needs a pool id or name\n\n${HELP}`);
  const problem = poolRefProblem(ref);
  if (problem !== undefined) throw new UsageError(`${quotedExcerpt(ref)} is not a pool id or name: ${problem}`);
  const output = args.values.output ?? 'summary';
  if (output !== 'summary' && output !== 'json') throw new UsageError(`-o must be summary or json (got "${output}")`);
  const config = loadUpstreamConfig(args.values.config);
  const client = createUpstreamClient(config, 'pool');
  const err = paint(
    useColor(process.stderr, { color: args.values.color === true, noColor: args.values['no-color'] === true }),
  );
  try {
    let res;
    try {
      res = await client.getPool(ref);
    } catch (e) {
      const cause =
        (e as { cause?: { code?: string } }).cause?.code ?? (e as { code?: string }).code ?? (e as Error).message;
      process.stderr.write(err.red(`✗ cannot reach ${displayUrl(config.upstream.url)}: ${cause}`) + '\n');
      return 1;
    }
    if (res.kind === 'error') {
      const hint =
        HINTS[res.status] ?? (res.status === 429 ? 'rate limited: try again later' : 'the service refused the lookup');
      // The service's words reach a terminal: its control characters are not passed on (util/printable.ts).
      process.stderr.write(
        err.red(`✗ pool ${printable(ref)}: ${printable(describeApiError(res.status, res.error))}`) + `\n  ${hint}\n`,
      );
      return 1;
    }
    if (output === 'json') {
      process.stdout.write(terminalJson(JSON.stringify(res.value, null, 2)) + '\n');
      return 0;
    }
    const parsed = parsePool(res.value);
    if (!parsed.ok) {
      process.stderr.write(
        err.red(
          `✗ pool ${printable(ref)}: the service's answer is not a browser pool (${printable(parsed.reason)}); see -o json`,
        ) + '\n',
      );
      return 1;
    }
    const out = paint(
      useColor(process.stdout, { color: args.values.color === true, noColor: args.values['no-color'] === true }),
    );
    // Every name, region and id in it is the service's text, shown without its control characters.
    process.stdout.write(formatPoolSummary(printableDeep(parsed.pool), out) + '\n');
    return 0;
  } finally {
    await client.close();
  }
}
