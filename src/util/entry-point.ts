// Lets a command module run on its own (`node …/main.js`, tests and the bench start them that way)
// as well as through the CLI, which imports it and calls main() itself.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Runs `main(argv)` and exits with its code when the module at `moduleUrl` is the process's entry point. */
export function runIfEntryPoint(moduleUrl: string, main: (argv: string[]) => Promise<number>, name: string): void {
  let entry: boolean;
  try {
    entry = process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    entry = false;
  }
  if (!entry) return;
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${name}: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
