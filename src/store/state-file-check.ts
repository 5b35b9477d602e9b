// Whether the state database is still the file this process opened. A state directory deleted (or
// its database replaced) under a running bridge leaves SQLite writing to an unlinked inode: every
// commit succeeds, and every checkpoint, spooled record and session added through the API is gone
// at the next start, in silence. Checked before writes, at most once a second (a stat), and sticky:
// a removed inode never comes back.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { steadyNow } from '../util/steady-clock.js';

/** How often a write looks at the file: a stat costs microseconds, a commit runs every few ms. */
const CHECK_EVERY_MS = 1000;

export class StateFileCheck {
  private readonly path: string;
  private readonly dev: number;
  private readonly ino: number;
  private checkedAt = 0;
  private problem: string | undefined;

  /** Takes the identity of `file` as it is now (just opened). */
  constructor(file: string) {
    this.path = resolve(file);
    const st = statSync(this.path);
    this.dev = st.dev;
    this.ino = st.ino;
  }

  /** Why the file can no longer be trusted, once a check found it removed or replaced. */
  get found(): string | undefined {
    return this.problem;
  }

  /** Throws (code STATE_FILE_GONE) once the file is removed or replaced; the caller's write fails with it. */
  assertPresent(now = steadyNow()): void {
    if (this.problem === undefined && now - this.checkedAt >= CHECK_EVERY_MS) {
      this.checkedAt = now;
      this.problem = this.look();
    }
    if (this.problem !== undefined) throw Object.assign(new Error(this.problem), { code: 'STATE_FILE_GONE' });
  }

  private look(): string | undefined {
    let st;
    try {
      st = statSync(this.path);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') return undefined; // not a verdict: asked again later
      return `the state database ${this.path} was deleted while the bridge runs: nothing it writes would survive a restart; restart the bridge (its sessions resume from the service)`;
    }
    return st.dev === this.dev && st.ino === this.ino
      ? undefined
      : `the state database ${this.path} was replaced while the bridge runs: this process writes to the old one; restart the bridge`;
  }
}
