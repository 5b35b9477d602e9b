// Moves SQLite's WAL checkpoints off the event loop. In WAL mode with synchronous=NORMAL a commit
// never waits for the disk, but a checkpoint (copying the WAL back into the database) fsyncs, and
// SQLite runs it inside whichever commit crosses the auto-checkpoint size: measured with a thousand
// live sessions, those commits blocked the event loop for up to a second at a time while the CPU
// sat idle, and every export request and stream read waited behind them.
//
// So the bridge's connection never checkpoints (wal_autocheckpoint = 0) and a worker thread with
// its own connection to the same file runs a PASSIVE checkpoint every `intervalMs` — passive
// checkpoints never block the writer, and a fully checkpointed WAL is reused from its start by the
// next commit, so it does not grow. Should the worker fail, the connection checkpoints by itself
// again (correct, only slower).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { timeout: 5000 });
const tick = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message) });
  }
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'close') return;
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(TRUNCATE)'); } catch {}
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  close(): Promise<void>;
}

/** Starts checkpointing `file` off the main thread; `onFailure` re-enables the connection's own. */
export function startCheckpointer(file: string, intervalMs: number, onFailure: (err: Error) => void): Checkpointer {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file, module, intervalMs } });
  let failed = false;
  const fail = (err: Error): void => {
    if (failed) return;
    failed = true;
    onFailure(err);
  };
  worker.on('message', (m: { error?: string }) => {
    if (m.error) fail(new Error(m.error));
  });
  worker.on('error', fail);
  worker.unref();
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (failed) {
          void worker.terminate().then(() => resolve());
          return;
        }
        const t = setTimeout(() => void worker.terminate().then(() => resolve()), 5000);
        worker.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        worker.postMessage('close');
      });
      return closing;
    },
  };
}
