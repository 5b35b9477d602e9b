// Whether another user (`nobody`, whom the tests run a server or a command as when they run as
// root) can reach a path: every directory from the root searchable by others, and the path itself
// readable by others, or runnable when it is a program. A clone in a private directory (CI's
// `mktemp -d` is 0700, and so is /root) hides everything in it, node_modules' programs included.
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const OTHERS_EXECUTE = 0o001;
const OTHERS_READ = 0o004;

/** `path` is reachable by others, and readable by them (runnable too, with `run`). */
export function othersCanReach(path: string, opts: { run?: boolean } = {}): boolean {
  try {
    const own = statSync(path).mode;
    if ((own & OTHERS_READ) === 0 || (opts.run === true && (own & OTHERS_EXECUTE) === 0)) return false;
    for (let d = dirname(resolve(path)); ; d = dirname(d)) {
      if ((statSync(d).mode & OTHERS_EXECUTE) === 0) return false;
      if (dirname(d) === d) return true;
    }
  } catch {
    return false;
  }
}
