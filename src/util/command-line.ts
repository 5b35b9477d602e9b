// Shared option parsing for the commands: node's util.parseArgs with a help text per command.
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Wrong command-line usage; main prints the message and exits with code 2. */
export class UsageError extends Error {}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses argv; prints `help` and returns null for --help; throws UsageError on bad options. */
export function parseCommand<O extends Options>(argv: string[], options: O, help: string, allowPositionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: allowPositionals > 0, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${help}`);
  }
  if ((parsed.values as Record<string, unknown>).help) {
    process.stdout.write(help + '\n');
    return null;
  }
  if (parsed.positionals.length > allowPositionals) throw new UsageError(`unexpected argument "${parsed.positionals[allowPositionals]}"\n\n${help}`);
  return parsed;
}
