// Locates the package root (the nearest ancestor directory holding package.json) so that files
// shipped next to the code (proto/) are found both from src/ under tsx and from the compiled dist/.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest directory at or above `fromUrl`'s directory that contains a package.json. */
export function findPackageRoot(fromUrl: string = import.meta.url): string {
  const start = path.dirname(fileURLToPath(fromUrl));
  let dir = start;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json found in ${start} or any parent directory`);
    dir = parent;
  }
}
