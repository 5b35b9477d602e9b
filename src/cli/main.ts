#!/usr/bin/env node
// Entry point of the `browser-telemetry-bridge` binary: dispatches to one command per file.
// Exit codes: 0 success, 1 runtime failure, 2 invalid configuration or usage.
import { existsSync } from 'node:fs';
import { ConfigError } from '../config/errors.js';
import { UsageError } from '../util/command-line.js';
import { closest } from '../util/closest-name.js';
import { StoreOpenError } from '../store/sqlite-store.js';
import { BRIDGE_VERSION } from '../util/version.js';
import { DEVKIT_COMMANDS, devkitAbsentMessage, isModuleNotFound } from './devkit-absent.js';

interface Command {
  summary: string;
  load(): Promise<{ main(argv: string[]): Promise<number> }>;
}

const COMMANDS: Record<string, Command> = {
  run: {
    summary: 'follow the configured sessions and deliver their telemetry (the daemon)',
    load: () => import('./run-command.js'),
  },
  tail: {
    summary: "follow one session's telemetry live, one readable line per event (or -o json)",
    load: () => import('./tail-command.js'),
  },
  pool: {
    summary: 'show a browser pool: region, capacity, telemetry configuration (or -o json)',
    load: () => import('./pool-command.js'),
  },
  validate: {
    summary: 'validate the configuration offline (no network); same messages as run',
    load: () => import('./validate-command.js'),
  },
  check: {
    summary: 'check configuration, service, sessions, pools, collector (and traces endpoint), state dir; ✓/✗ list',
    load: () => import('./check-command.js'),
  },
  top: {
    summary: 'a live view of a running bridge: sessions, rates, lag, gaps, errors, exporter, spool',
    load: () => import('./top-command.js'),
  },
  demo: {
    summary: 'the whole pipeline against the bundled simulator and a local OTLP receiver',
    load: () => import('../devkit/demo/demo-command.js'),
  },
  simulate: {
    summary: 'run the bundled simulator of the session service (try tail, check, run against it)',
    load: () => import('../devkit/simulator/main.js'),
  },
  receive: {
    summary: 'run a local OTLP/HTTP (and with --grpc OTLP/gRPC) logs receiver that prints every record it decodes',
    load: () => import('../devkit/receiver/main.js'),
  },
};

function help(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((n) => n.length));
  // The image's daemon (the bundle, or dist/ without devkit/) leaves the devkit out; its help must not
  // offer demo, simulate and receive as if they ran there. The devkit sits beside cli/ in src/ and
  // dist/, and would beside bundle/ in /app.
  const devkit = existsSync(new URL('../devkit/', import.meta.url));
  const summary = (n: string): string =>
    !devkit && DEVKIT_COMMANDS.includes(n)
      ? 'not in this installation (the devkit); `' + n + '` says where to run it'
      : COMMANDS[n]!.summary;
  return [
    `browser-telemetry-bridge ${BRIDGE_VERSION}`,
    'Delivers the telemetry of cloud browser sessions to an OpenTelemetry (OTLP) collector.',
    '',
    'Usage: browser-telemetry-bridge <command> [options]',
    '',
    'Commands:',
    ...names.map((n) => `  ${n.padEnd(width)}  ${summary(n)}`),
    '',
    'Run `browser-telemetry-bridge <command> --help` for the options and examples of a command.',
    'Configuration: --config FILE or BRIDGE_CONFIG, plus environment variables (see README).',
  ].join('\n');
}

/** A process killed by SIGPIPE reports 128 + 13; shells show that for a writer whose reader left. */
const EXIT_READER_GONE = 141;

// A reader that stops reading (`check | head -3`, `receive | head`) closes the pipe, and the next
// write fails with EPIPE: without a listener that was an 'Unhandled error event' and a stack trace.
// The command stops there, quietly, as a C program killed by SIGPIPE would, with the same status
// (not 0: check's verdict was not reached). `tail` listens itself: a reader that has seen enough
// ends it with 0 and its summary.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (process.stdout.listenerCount('error') > 1) return;
  if (err.code === 'EPIPE') process.exit(EXIT_READER_GONE);
  throw err;
});

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(help() + '\n');
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v' || name === '-V') {
    process.stdout.write(BRIDGE_VERSION + '\n');
    return 0;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    // One line, as a mistyped option is: the command meant, when one is near.
    const near = closest(name, Object.keys(COMMANDS));
    process.stderr.write(
      `unknown command "${name}"${near ? `; did you mean ${near}?` : ''} (--help for the commands)\n`,
    );
    return 2;
  }
  try {
    let command: Awaited<ReturnType<Command['load']>>;
    try {
      command = await cmd.load();
    } catch (err) {
      if (!DEVKIT_COMMANDS.includes(name) || !isModuleNotFound(err)) throw err;
      process.stderr.write(`${devkitAbsentMessage(name)}\n`);
      return 2;
    }
    return await command.main(rest);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`invalid configuration: ${err.message}\n`);
      return 2;
    }
    if (err instanceof StoreOpenError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    // One line that says what failed (issue: every start-up failure is one line); the stack is for
    // whoever asks for it with LOG_LEVEL=debug.
    const e = err as Error | undefined;
    const stack = process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace' ? `\n${e?.stack ?? ''}` : '';
    process.stderr.write(`error: ${e?.message ?? String(err)}${stack}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`fatal: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
