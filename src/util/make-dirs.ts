// mkdir -p one level at a time. Not mkdirSync's `recursive`, which spins forever on some pseudo
// file systems (/proc) instead of failing, and would hang the daemon on a mistyped state dir.
// What the bridge creates holds unredacted telemetry (spool bodies, screenshots): directories are
// made 0700 and files 0600, so only the bridge's own user reads them whatever the umask allows.
import { chmodSync, closeSync, constants, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Mode of the directories the bridge creates. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of the files the bridge creates. */
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `abs` and its missing parents (0700); returns the topmost directory it created (or `abs`). */
export function makeDirs(abs: string): string {
  const missing: string[] = [];
  let dir = abs;
  while (!statSync(dir, { throwIfNoEntry: false })) {
    missing.unshift(dir);
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  for (const d of missing) mkdirSync(d, { mode: PRIVATE_DIR_MODE });
  return missing[0] ?? abs;
}

/**
 * Makes sure `file` exists with mode 0600 before a library (SQLite) opens it: a missing file is
 * created 0600, an existing one that others may read is narrowed to 0600. SQLite gives the `-wal`
 * and `-shm` files it creates the mode of the database file, so they follow.
 */
export function ensurePrivateFile(file: string): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st) {
    closeSync(openSync(file, constants.O_CREAT | constants.O_WRONLY | constants.O_NOFOLLOW, PRIVATE_FILE_MODE));
    return;
  }
  if (st.isFile() && (st.mode & 0o077) !== 0) chmodSync(file, PRIVATE_FILE_MODE);
}

/**
 * A sentence when others than the owner may enter or read the directory `abs` (a warning at start:
 * an operator may have meant it, e.g. a group shared with a backup job), or undefined.
 */
export function dirAccessProblem(abs: string): string | undefined {
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return undefined;
  const mode = st.mode & 0o777;
  if ((mode & 0o007) !== 0) {
    return `the state directory ${abs} is open to every user of this host (mode ${mode.toString(8).padStart(4, '0')}); it holds unredacted telemetry: chmod 700 it`;
  }
  if ((mode & 0o070) !== 0) {
    return `the state directory ${abs} is open to its group (mode ${mode.toString(8).padStart(4, '0')}); it holds unredacted telemetry: chmod 700 it unless the group is meant to read it`;
  }
  return undefined;
}
