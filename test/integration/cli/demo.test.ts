// `demo` as a person runs it, small: the whole pipeline with its kill -9, over OTLP/gRPC, traces on.
import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { REPO, runCli, startCli } from './cli-process.js';
import { until } from '../../helpers/harness.js';

describe('demo', () => {
  it('--protocol grpc delivers every event to the receiver over OTLP/gRPC, through the kill -9', async () => {
    const res = await runCli(
      ['demo', '--protocol', 'grpc', '--sessions', '2', '--events', '400', '--rate', '400'],
      {},
      100_000,
    );
    expect(res.stdout, res.stderr).toMatch(/^receiver {3}http:\/\/127\.0\.0\.1:\d+ {3}\(grpc\)$/m);
    expect(res.stdout).toMatch(/>>> kill -9 \d+/);
    // The sessions end once everything arrived, even when all was delivered before the kill: the
    // daemon (run --until-ended) exits by itself, which the ✓ requires, rather than being stopped at
    // the demo's deadline (measured as a property, not against the wall clock of a loaded machine).
    expect(res.stdout).toMatch(/^✓ every event delivered: /m);
    // Traces on (BRIDGE_TRACES): spans through the kill -9 too, records pointing at them, a waterfall.
    expect(res.stdout).toMatch(/^Spans: [1-9]\d* received; [1-9]\d* of \d+ records point at one/m);
    expect(res.stdout).toMatch(/^ {2}span +offset +duration +status +timeline$/m);
    expect(res.code).toBe(0);
  }, 120_000);

  it('emits exactly the events its header announces, and says why one session has one more', async () => {
    const res = await runCli(
      ['demo', '--no-crash', '--sessions', '2', '--events', '300', '--rate', '600'],
      {},
      100_000,
    );
    expect(res.stdout).toMatch(
      /^simulator .*\(2 sessions, 2 more appearing while the daemon runs, 300 events each at 600\/s; demo-session-2 gets one more, a frame broken on the wire\)$/m,
    );
    const final = res.stdout.slice(res.stdout.indexOf('Final:'));
    expect(final).toMatch(/^ {2}demo-session-1 +emitted +300 +delivered +300 /m);
    expect(final).toMatch(/^ {2}demo-session-2 +emitted +301 +delivered +301 /m);
    // The sessions that appear while the daemon runs are announced with the same count.
    expect(final).toMatch(/^ {2}demo-late-1 +emitted +300 +delivered +300 /m);
    expect(final).toMatch(/^ {2}demo-late-2 +emitted +300 +delivered +300 /m);
    expect(res.code).toBe(0);
  }, 120_000);

  it('runs the same under a shell that exported the bridge’s variables, and names the ones it ignored', async () => {
    // A port someone else holds, as a leftover BRIDGE_LISTEN would name.
    const taken: Server = await new Promise((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => resolve(srv));
    });
    const port = (taken.address() as { port: number }).port;
    try {
      const res = await runCli(
        ['demo', '--no-crash', '--sessions', '1', '--appear', '0', '--events', '200', '--rate', '400'],
        {
          OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://127.0.0.1:1/v1/logs',
          OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20x',
          BRIDGE_STORE_URL: 'postgres://nobody@127.0.0.1:1/none',
          BRIDGE_SESSIONS: 'sess typo,sess_123',
          BRIDGE_LISTEN: `127.0.0.1:${port}`,
          BROWSER_API_KEY: 'a-real-key',
          HTTP_PROXY: 'http://127.0.0.1:1',
        },
        100_000,
      );
      expect(res.stdout, res.stderr).toMatch(
        /^ignored {4}BRIDGE_LISTEN, BRIDGE_SESSIONS, BRIDGE_STORE_URL, BROWSER_API_KEY, HTTP_PROXY, OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT {3}\(/m,
      );
      expect(res.stdout).toMatch(/^✓ every event delivered: 200 records /m);
      // One session: no frame was broken, so the summary does not speak of one; no kill, no "after the kill".
      expect(res.stdout).not.toMatch(/undecodable|kill -9/);
      // Off a terminal the table is printed once, at the end, and the daemon said nothing in JSON.
      expect(res.stdout.match(/^ {2}demo-session-1 +emitted/gm)).toHaveLength(1);
      expect(res.stdout).not.toMatch(/^\{"level"/m);
      expect(res.code).toBe(0);
    } finally {
      taken.close();
    }
  }, 120_000);

  it.each(['SIGINT', 'SIGHUP'] as const)(
    '%s (Ctrl-C; a closed terminal) stops the demo and its daemon and removes its state directory',
    async (signal) => {
      // The signal to the demo alone (the daemon is in a process group of its own): the daemon it
      // started must not outlive it, reconnecting to a simulator that is gone.
      const p = startCli(['demo', '--events', '100000', '--rate', '200'], {});
      try {
        await p.waitFor(/^daemon {5}pid \d+ started/m, 'stdout', 60_000);
        const daemonPid = Number(/^daemon {5}pid (\d+)/m.exec(p.stdout())![1]);
        const stateDir = /^state {6}(\S+)/m.exec(p.stdout())![1]!;
        p.child.kill(signal);
        const res = await p.done;
        expect(res.code).toBe(130);
        expect(res.stdout).toMatch(new RegExp(`^>>> ${signal}: the demo stops before its end`, 'm'));
        expect(isAlive(daemonPid)).toBe(false);
        expect(existsSync(stateDir)).toBe(false);
      } finally {
        if (p.child.exitCode === null) p.child.kill('SIGKILL');
      }
    },
    120_000,
  );

  it('two signals a moment apart are one Ctrl-C: the demo stops as after one', async () => {
    const p = startCli(['demo', '--events', '100000', '--rate', '200'], {});
    try {
      await p.waitFor(/^daemon {5}pid \d+ started/m, 'stdout', 60_000);
      const daemonPid = Number(/^daemon {5}pid (\d+)/m.exec(p.stdout())![1]);
      const stateDir = /^state {6}(\S+)/m.exec(p.stdout())![1]!;
      // Apart enough to be two deliveries (the kernel merges a signal still pending), and close
      // enough that a demo busy for a moment (a loaded machine) still handles both within the
      // 500 ms that make them one Ctrl-C, as npm's copy of the terminal's comes within a millisecond.
      p.child.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 10));
      p.child.kill('SIGINT');
      const res = await p.done;
      expect(res.code).toBe(130);
      // Taken as a second Ctrl-C, the copy would kill the daemon and exit without this line.
      expect(res.stdout).toMatch(/^>>> SIGINT: the demo stops before its end/m);
      expect(isAlive(daemonPid)).toBe(false);
      expect(existsSync(stateDir)).toBe(false);
    } finally {
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
    }
  }, 120_000);

  it('Ctrl-C at the terminal under `npm run demo` (npm and the demo both signalled) is one Ctrl-C', async () => {
    // The terminal signals its whole foreground process group: npm, which passes the signal on to
    // its script, and the demo itself. The demo then sees SIGINT twice at once, and must still stop
    // as after one Ctrl-C: the daemon stopped and waited for, the state directory removed.
    const npm = spawn('npm', ['run', '--silent', 'demo', '--', '--events', '100000', '--rate', '200'], {
      cwd: REPO,
      detached: true,
      env: { PATH: process.env.PATH ?? '', TZ: 'UTC', NO_COLOR: '1', LOG_LEVEL: 'warn', HOME: process.env.HOME },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    npm.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    npm.stderr.resume();
    // npm ends the way its script did: re-raising the signal on itself, or with the script's 130.
    const exited = new Promise<string>((resolve) =>
      npm.once('exit', (code, signal) => resolve(signal ?? String(code))),
    );
    try {
      await until(() => /^daemon {5}pid \d+ started/m.test(stdout), 'the demo starting its daemon', 60_000);
      const daemonPid = Number(/^daemon {5}pid (\d+)/m.exec(stdout)![1]);
      const stateDir = /^state {6}(\S+)/m.exec(stdout)![1]!;
      process.kill(-npm.pid!, 'SIGINT');
      expect(['SIGINT', '130']).toContain(await exited);
      expect(stdout).toMatch(/^>>> SIGINT: the demo stops before its end/m);
      expect(isAlive(daemonPid)).toBe(false);
      expect(existsSync(stateDir)).toBe(false);
    } finally {
      if (npm.exitCode === null && npm.signalCode === null) {
        try {
          process.kill(-npm.pid!, 'SIGKILL');
        } catch {
          // the group ended meanwhile
        }
      }
    }
  }, 120_000);

  it('refuses a protocol it does not know, naming the three', async () => {
    const res = await runCli(['demo', '--protocol', 'thrift'], {});
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--protocol must be http/protobuf, http/json or grpc');
  });
});

/** Running: a process that exists and is not a zombie (an orphan's is reaped only if PID 1 reaps). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/PID/stat: "pid (comm) state …"; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
