// Linux perf, driven as child processes: whether it can record the whole machine, a recording of
// every CPU with call chains, and its `perf script` text as a stream of lines. Every call has a
// deadline after which perf is killed, so the tool fails instead of hanging.
import { execFile, spawn, type ExecFileException } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const INSTALL = 'install it (Debian: apt-get install linux-perf; Ubuntu: linux-tools-$(uname -r))';

/**
 * Why this user cannot record every CPU with kernel call chains, or null when it can. Root (or
 * CAP_PERFMON) may at any paranoia level; others need kernel.perf_event_paranoid ≤ 0 (-a needs
 * CPU-wide events, which level 1 and above refuse to unprivileged users).
 */
export function perfAccessProblem(uid: number | undefined, paranoid: number | null): string | null {
  if (uid === 0) return null;
  if (paranoid === null) return 'cannot read /proc/sys/kernel/perf_event_paranoid (is this Linux?)';
  if (paranoid <= 0) return null;
  return (
    `kernel.perf_event_paranoid is ${paranoid}: recording every CPU needs root or ≤ 0 ` +
    '(sudo sysctl kernel.perf_event_paranoid=0, or run this as root)'
  );
}

/** Throws, saying what to do, unless perf is installed and may record the whole machine. */
export async function checkPerf(): Promise<string> {
  const run = await new Promise<{ err: ExecFileException | null; stdout: string; stderr: string }>((resolve) =>
    execFile('perf', ['--version'], { timeout: 10_000 }, (err, stdout, stderr) => resolve({ err, stdout, stderr })),
  );
  if (run.err) {
    // Debian's /usr/bin/perf is a wrapper that fails when the running kernel's perf is not installed.
    if (run.err.code === 'ENOENT') throw new Error(`perf is not installed: ${INSTALL}`, { cause: run.err });
    const said = (run.stderr || run.err.message).trim().split('\n')[0];
    throw new Error(`perf does not run (${said}): ${INSTALL}`, { cause: run.err });
  }
  const version = run.stdout.trim();
  let paranoid: number | null = null;
  try {
    paranoid = Number(readFileSync('/proc/sys/kernel/perf_event_paranoid', 'utf8').trim());
  } catch {
    // not Linux, or no procfs: said below
  }
  const problem = perfAccessProblem(process.getuid?.(), paranoid);
  if (problem) throw new Error(problem);
  return version;
}

interface Run {
  /** The last lines perf wrote to stderr (its summary, or why it failed). */
  stderr: string;
}

/** Runs `perf args…` to its end within `timeoutMs`; rejects with perf's own words when it fails. */
function perf(args: string[], timeoutMs: number, onStdoutLine?: (line: string) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('perf', args, { stdio: ['ignore', onStdoutLine ? 'pipe' : 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
    const lines =
      onStdoutLine && child.stdout ? createInterface({ input: child.stdout, crlfDelay: Infinity }) : undefined;
    lines?.on('line', onStdoutLine!);
    const stdoutDone = lines ? new Promise<void>((r) => lines.once('close', r)) : Promise.resolve();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      void stdoutDone.then(() => {
        const said = stderr.trim().split('\n').slice(-3).join(' / ');
        if (timedOut) reject(new Error(`perf ${args[0]} did not finish within ${timeoutMs / 1000} s`));
        else if (code !== 0) reject(new Error(`perf ${args[0]} failed (${signal ?? code}): ${said}`));
        else resolve({ stderr: said });
      });
    });
  });
}

/**
 * `perf record -F <hz> -a -g` of every CPU for `seconds`, into `file`. Resolves with perf's summary
 * ("[ perf record: Captured and wrote … (N samples) ]").
 */
export async function recordMachine(file: string, seconds: number, frequency: number): Promise<string> {
  const run = await perf(
    ['record', '-F', String(frequency), '-a', '-g', '-o', file, '--', 'sleep', String(seconds)],
    (seconds + 60) * 1000,
  );
  return run.stderr;
}

/**
 * `perf script` of a recording, one line at a time to `onLine` (and into `copyTo`, when given). It
 * resolves JIT frames through /tmp/perf-<pid>.map, so it must run before those files are removed.
 */
export async function scriptLines(
  file: string,
  onLine: (line: string) => void,
  timeoutMs: number,
  copyTo?: string,
): Promise<void> {
  const copy = copyTo !== undefined ? createWriteStream(copyTo) : undefined;
  try {
    await perf(['script', '-i', file, '-F', 'comm,pid,tid,time,ip,sym,dso'], timeoutMs, (line) => {
      onLine(line);
      copy?.write(line + '\n');
    });
  } finally {
    if (copy) await new Promise((r) => copy.end(r));
  }
}
