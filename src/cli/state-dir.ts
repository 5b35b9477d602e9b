// What `run` and `check` both say about the state directory before the store opens it, so the two
// commands describe the same problem in the same words.
import { accessSync, constants, existsSync, statSync, statfsSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { makeDirs } from '../util/make-dirs.js';

const WHAT_TO_DO =
  'set BRIDGE_STATE_DIR (or state.dir) to a directory this user may write, or change the owner or mode of this one';

/** A sentence naming why `dir` cannot be the state directory, or undefined when it can be tried. */
export function stateDirShapeProblem(dir: string): string | undefined {
  const abs = resolve(dir);
  let st;
  try {
    st = statSync(abs, { throwIfNoEntry: false });
  } catch (err) {
    return unusable(abs, err);
  }
  if (st && !st.isDirectory()) return `the state directory ${abs} is a file, not a directory`;
  return undefined;
}

/**
 * What `run` checks before it opens the store: the directory has the right shape and takes a file.
 * A missing directory is created (with its parents), as the store would; a file is written and
 * removed. The answer is one sentence that says what to do, instead of SQLite's "unable to open
 * database file" or a stack trace from a parent this user cannot read.
 */
export function stateDirWriteProblem(dir: string): string | undefined {
  const shape = stateDirShapeProblem(dir);
  if (shape) return shape;
  const abs = resolve(dir);
  try {
    if (!statSync(abs, { throwIfNoEntry: false })) makeDirs(abs);
    const probe = join(abs, `.bridge-write-test-${process.pid}`);
    writeFileSync(probe, '');
    unlinkSync(probe);
  } catch (err) {
    return unusable(abs, err);
  }
  return stateFilesProblem(abs) ?? stateDirRoomProblem(abs);
}

/**
 * Bytes a new state database takes as SQLite creates it: its tables at 64 KiB pages and the
 * write-ahead log that writes them, about 1.5 MiB (measured on a tmpfs), with a margin.
 */
const NEW_STORE_BYTES = 2 * 1024 * 1024;

/**
 * A sentence when the volume of `dir` has no room for the store to open: an empty file (the write
 * test) takes no space, so a full volume passed it, `check` showed ✓ and `run` stopped at SQLite's
 * "database or disk is full". An existing database needs room only to be written.
 */
export function stateDirRoomProblem(dir: string): string | undefined {
  const abs = resolve(dir);
  let free: number;
  try {
    const s = statfsSync(abs);
    free = s.bavail * s.bsize;
  } catch {
    return undefined;
  }
  const isNew = !existsSync(join(abs, 'bridge.db'));
  if (free >= (isNew ? NEW_STORE_BYTES : 1)) return undefined;
  return fullVolume(abs, isNew ? `${kib(free)} free; a new state database needs about 2 MiB` : 'no byte free');
}

const kib = (bytes: number): string => `${Math.floor(bytes / 1024)} KiB`;

function fullVolume(abs: string, why?: string): string {
  return `the state directory ${abs} is on a full volume${why ? ` (${why})` : ''}; free space or choose another one`;
}

/**
 * The files the store writes in the directory (store/sqlite-store.ts, sqlite-state-lock.ts). The
 * rollback journals outlive a kill -9 in a write transaction (the page-size rebuild's VACUUM,
 * sqlite-page-size.ts; the lock's): the next open must write them to roll it back.
 */
const STATE_FILES = [
  'bridge.db',
  'bridge.db-wal',
  'bridge.db-shm',
  'bridge.db-journal',
  'bridge.lock',
  'bridge.lock-journal',
];

/**
 * A sentence naming a file of the state directory that exists and that this user may not write
 * (a copy restored with the wrong owner, a chmod, an immutable flag), or undefined. A directory
 * that takes new files says nothing about the files in it: without this, `check` showed ✓ and `run`
 * stopped at SQLite's "attempt to write a readonly database".
 */
export function stateFilesProblem(dir: string): string | undefined {
  const abs = resolve(dir);
  for (const name of STATE_FILES) {
    const file = join(abs, name);
    try {
      accessSync(file, constants.W_OK);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ENOENT') continue;
      if (e.code === 'EROFS') return unusable(abs, err);
      if (e.code !== 'EACCES' && e.code !== 'EPERM')
        return `the state file ${file} cannot be used: ${e.code ?? e.message}`;
      const mode = (statSync(file).mode & 0o777).toString(8).padStart(4, '0');
      return `the state file ${file} is read-only for ${who()} (mode ${mode}${e.code === 'EPERM' ? ', or an immutable flag' : ''}); change its owner or mode (the bridge keeps its files 0600 for its own user), or set BRIDGE_STATE_DIR (or state.dir) to a directory this user may write`;
    }
  }
  return undefined;
}

function who(): string {
  const uid = process.getuid?.();
  return uid === undefined ? 'this user' : `this user (uid ${uid})`;
}

/** Why `abs` cannot be the state directory, from the error a write or a mkdir there gave. */
export function unusable(abs: string, err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      // The write test's own file name would only distract: the directory is what refused it.
      return `the state directory ${abs} cannot be created or written by ${who()}: permission denied on ${e.path?.includes('.bridge-write-test-') ? abs : (e.path ?? abs)}; ${WHAT_TO_DO}`;
    case 'EROFS':
      return `the state directory ${abs} is on a read-only file system; set BRIDGE_STATE_DIR (or state.dir) to a writable volume`;
    case 'ENOTDIR':
      return `the state directory ${abs} cannot exist: a part of its path is a file, not a directory`;
    case 'ENOSPC':
    case 'SQLITE_FULL':
      return fullVolume(abs);
    default:
      return `the state directory ${abs} cannot be used: ${e.code ?? e.message}`;
  }
}

/**
 * Whether a running bridge holds the directory. The daemon holds an exclusive SQLite transaction
 * on `bridge.lock` for its whole life (store/sqlite-store.ts); a read of that file without waiting
 * is refused with SQLITE_BUSY exactly while it does. The read takes a shared lock for a few
 * microseconds; nothing is created or written, and a directory without the file is simply free.
 */
export function stateDirBusy(dir: string): boolean {
  let db: Database.Database | undefined;
  try {
    db = new Database(join(resolve(dir), 'bridge.lock'), { readonly: true, fileMustExist: true, timeout: 0 });
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return false;
  } catch (err) {
    return (err as { code?: string }).code === 'SQLITE_BUSY';
  } finally {
    db?.close();
  }
}
