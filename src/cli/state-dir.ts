// What `run` and `check` both say about the state directory before the store opens it, so the two
// commands describe the same problem in the same words.
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';

/** A sentence naming why `dir` cannot be the state directory, or undefined when it can be tried. */
export function stateDirShapeProblem(dir: string): string | undefined {
  const abs = resolve(dir);
  const st = statSync(abs, { throwIfNoEntry: false });
  if (st && !st.isDirectory()) return `the state directory ${abs} is a file, not a directory`;
  return undefined;
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
