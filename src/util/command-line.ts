// Shared option parsing for the commands: node's util.parseArgs with a help text per command. A
// mistake is one line that names it and, for a mistyped option, the one that was meant; the help
// is one --help away, not thirty lines that push the mistake off the screen.
import type { ParseArgsConfig } from 'node:util';
import { closest } from './closest-name.js';

// Taken with getBuiltinModule: an ES import of node:util reads every export of its namespace, lazy
// getters included, which costs about 3 MiB of RSS on Node 24 (as node:http does, util/node-http.ts).
const { parseArgs } = process.getBuiltinModule('node:util');

/** Wrong command-line usage; main prints the message and exits with code 2. */
export class UsageError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses argv; prints `help` and returns null for --help; throws UsageError on bad options. */
export function parseCommand<O extends Options>(argv: string[], options: O, help: string, allowPositionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: allowPositionals > 0,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(`${usageProblem(err as NodeJS.ErrnoException, options)} (--help for the options)`);
  }
  if ((parsed.values as Record<string, unknown>).help) {
    process.stdout.write(help + '\n');
    return null;
  }
  if (parsed.positionals.length > allowPositionals)
    throw new UsageError(`unexpected argument "${parsed.positionals[allowPositionals]}" (--help for the usage)`);
  return parsed;
}

/** parseArgs' complaint in the words of this CLI: `unknown option --form; did you mean --from?`. */
function usageProblem(err: NodeJS.ErrnoException, options: Options): string {
  const named = /'(-{1,2}[^' ]+)/.exec(err.message)?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && named) {
    const names = [...Object.keys(options), 'help'];
    const near = named.startsWith('--') ? closest(named.slice(2), names) : undefined;
    return `unknown option ${named}${near ? `; did you mean --${near}?` : ''}`;
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && named) {
    if (/argument missing/.test(err.message)) return `option ${named} needs a value`;
    // `--from -3`: parseArgs will not take a value that starts with a dash after a space.
    if (/argument is ambiguous/.test(err.message))
      return `option ${named} needs a value; one that starts with "-" is written ${named}=-…`;
    return `option ${named} takes no value`;
  }
  return err.message;
}
