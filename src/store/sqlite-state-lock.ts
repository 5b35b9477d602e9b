// The state directory's lock: one bridge process per directory, held by the OS for as long as the
// process lives (released even by kill -9).
import Database from 'better-sqlite3';
import { join, resolve } from 'node:path';
import { ensurePrivateFile } from '../util/make-dirs.js';
import { StoreOpenError } from './sqlite-schema.js';

/**
 * Two bridges on one state directory (overlapping pods in a rolling update, a second `run` by hand)
 * would deliver the same spool twice and overwrite each other's checkpoints. An open exclusive
 * transaction on a small lock database holds an OS file lock for as long as this process lives.
 */
export function lockStateDir(dir: string): Database.Database {
  ensurePrivateFile(join(dir, 'bridge.lock'));
  const lock = new Database(join(dir, 'bridge.lock'), { timeout: 0 });
  try {
    lock.pragma('journal_mode = DELETE');
    lock.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER)');
    lock.exec('BEGIN EXCLUSIVE');
    lock.prepare('DELETE FROM owner').run();
    lock.prepare('INSERT INTO owner (pid) VALUES (?)').run(process.pid);
    return lock;
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new StoreOpenError(
        `the state directory ${resolve(dir)} is in use by another bridge process; two bridges must not share one`,
      );
    }
    throw err;
  }
}
