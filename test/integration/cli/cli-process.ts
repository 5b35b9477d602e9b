// Runs the real CLI as a person does: a child process (`node <src/cli/main.ts compiled> ...`, see
// test/helpers/compiled-sources.ts) from the repository root, configured only through the environment given here (the test runner's own
// environment is not inherited, so a developer's BROWSER_API_KEY cannot leak into a test).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { sourceEntry } from '../../helpers/compiled-sources.js';

export const REPO = resolve(import.meta.dirname, '../../..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process exits. */
  done: Promise<CliResult>;
  /** Resolves once stderr (or stdout) matches. */
  /** Waits until the stream's text matches `pattern` (a RegExp, or a predicate for what a RegExp says slowly). */
  waitFor(
    pattern: RegExp | ((text: string) => boolean),
    stream?: 'stdout' | 'stderr',
    timeoutMs?: number,
  ): Promise<void>;
}

/** `entry`: node arguments that run the CLI; the sources (compiled-sources.ts) unless given (e.g. the bundle's main.js). */
export function startCli(
  args: string[],
  env: Record<string, string | undefined>,
  entry: string[] = sourceEntry('cli/main.ts'),
  user?: { uid: number; gid: number },
): CliProcess {
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: REPO,
    // Another user (tests of permissions that root alone would pass; only root may ask for it).
    ...user,
    // Fixed time zone and no colour: pretty output is deterministic.
    env: { PATH: process.env.PATH ?? '', TZ: 'UTC', NO_COLOR: '1', LOG_LEVEL: 'warn', ...env },
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    for (const l of listeners) l();
  });
  const done = new Promise<CliResult>((r) => child.once('close', (code) => r({ code, stdout: out, stderr: err })));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    done,
    waitFor(pattern, stream = 'stderr', timeoutMs = 20_000) {
      return new Promise<void>((resolvePromise, reject) => {
        const check = (): void => {
          const text = stream === 'stderr' ? err : out;
          if (typeof pattern === 'function' ? pattern(text) : pattern.test(text)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolvePromise();
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${String(pattern)} on ${stream}; stdout: ${out}\nstderr: ${err}`));
        }, timeoutMs);
        listeners.add(check);
        check();
        void done.then(() => {
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`exited before ${String(pattern)} on ${stream}; stdout: ${out}\nstderr: ${err}`));
          }
        });
      });
    },
  };
}

/** Runs to completion; kills the process if it takes longer than `timeoutMs`. */
export async function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
  entry?: string[],
  user?: { uid: number; gid: number },
): Promise<CliResult> {
  const p = startCli(args, env, entry, user);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  try {
    return await p.done;
  } finally {
    clearTimeout(timer);
  }
}
