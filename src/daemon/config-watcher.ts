// Watches the configuration file and calls back, debounced, when its content changed.
//
// The directory is watched, not the file: editors save by writing a temporary file and renaming it
// over the original (vim, most IDEs), and Kubernetes updates a mounted ConfigMap by swapping the
// `..data` symlink. A watch on the file itself would keep following the old inode and go silent
// after the first save. Any event in the directory schedules one check after the debounce; the
// check compares the file's content with what it last saw, so the burst of events one save makes,
// or unrelated files in the same directory, trigger at most one reload and usually none.
import { watch, type FSWatcher } from 'node:fs';
import { MAX_CONFIG_BYTES } from '../config/file-limits.js';
import { FileTooLargeError, readTextFileBounded } from '../util/read-bounded.js';
import { dirname, resolve } from 'node:path';
import type { Logger } from 'pino';

export interface ConfigWatcher {
  close(): void;
}

export interface ConfigWatcherOptions {
  log: Logger;
  /** Quiet time after the last event before the file is read; default 500 ms. */
  debounceMs?: number;
}

export function watchConfigFile(path: string, onChange: () => void, opts: ConfigWatcherOptions): ConfigWatcher {
  const file = resolve(path);
  const debounceMs = opts.debounceMs ?? 500;
  let seen = digest(file);
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const check = (): void => {
    timer = undefined;
    if (closed) return;
    const now = digest(file);
    // Missing or unreadable (mid-rename, or being replaced): the next event brings the new file.
    if (now === undefined || now === seen) return;
    seen = now;
    onChange();
  };

  let watcher: FSWatcher | undefined;
  try {
    // persistent: false — the watch alone must not keep a shutting-down daemon alive.
    watcher = watch(dirname(file), { persistent: false }, () => {
      if (closed) return;
      clearTimeout(timer);
      timer = setTimeout(check, debounceMs);
    });
    watcher.on('error', (err) => {
      opts.log.warn(
        { error: err.message, dir: dirname(file) },
        'configuration directory watch failed; reload with SIGHUP',
      );
      watcher?.close();
    });
  } catch (err) {
    opts.log.warn(
      { error: (err as Error).message, dir: dirname(file) },
      'cannot watch the configuration directory; reload with SIGHUP',
    );
  }

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

/** What a file too large to be a configuration digests to: its reload says so, once. */
const TOO_LARGE = 'too large';

function digest(file: string): string | undefined {
  try {
    // Bounded as the reload's own read is: a file swapped for a huge one (or for /dev/zero) must not
    // stop the running daemon's event loop while it is hashed.
    const text = readTextFileBounded(file, MAX_CONFIG_BYTES);
    // node:crypto only once a configuration file is watched (about 3 MiB of RSS on Node 24).
    return process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('hex');
  } catch (err) {
    return err instanceof FileTooLargeError ? TOO_LARGE : undefined;
  }
}
