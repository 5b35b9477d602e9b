// mkdir -p one level at a time. Not mkdirSync's `recursive`, which spins forever on some pseudo
// file systems (/proc) instead of failing, and would hang the daemon on a mistyped state dir.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Creates `abs` and its missing parents; returns the topmost directory it created (or `abs`). */
export function makeDirs(abs: string): string {
  const missing: string[] = [];
  let dir = abs;
  while (!statSync(dir, { throwIfNoEntry: false })) {
    missing.unshift(dir);
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  for (const d of missing) mkdirSync(d);
  return missing[0] ?? abs;
}
