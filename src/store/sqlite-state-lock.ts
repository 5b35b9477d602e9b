// The state directory's lock: one bridge process per directory, held by the OS for as long as the
// process lives (released even by kill -9). And the locks of other programs on the state database:
// how long the store waits for one, and what a start that meets one says.
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

/**
 * How long a statement waits for a lock another process holds. Nothing of the bridge's own ever
 * holds one against it (one connection, and the state lock keeps other bridges out); only another
 * program does: a `sqlite3` shell left inside a transaction, a backup tool. The connection is
 * synchronous on the main thread, so every millisecond of that wait stops delivery, the HTTP surface
 * and the workers' messages with it: at SQLite's usual 5 s the main thread was frozen for 5 s a
 * commit attempt, back to back. A short wait rides out a reader's moment; longer holds fail the
 * commit, which is retried with backoff and reported as the lock it is (fact-log-words.ts).
 */
export const BUSY_TIMEOUT_MS = 100;

/** What a start says after SQLite's own words when another program holds the state database. */
export function heldBy(err: unknown): string {
  // SQLITE_BUSY and its extended codes (SQLITE_BUSY_RECOVERY: another process is recovering the WAL).
  return (err as { code?: string }).code?.startsWith('SQLITE_BUSY')
    ? ': another program holds it inside a transaction (a sqlite3 shell, a backup?); end it and start again'
    : '';
}
