// The benchmark measures the bridge as it runs in production: compiled JavaScript, on plain node,
// the way `npm start` and the container image run it (dist/). Under tsx the process would also
// carry the TypeScript loader, a loader thread with its own V8 heap in the main thread and again in
// every ingest worker: about 50 MiB of RSS that no deployment has.
//
// The runner compiles src/ and bench/ together (tsconfig.bench.json) into a directory of its own
// under .bench-build/, runs every scenario process and its peers (simulator, sink, ceiling) from
// there, and removes it at the end. `--from-source` runs everything under tsx instead (no build
// step, for a quick try of a change).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve, sep } from 'node:path';

const BUILD_DIR = '.bench-build';

/** Whether this process runs the compiled copy (a .js file) rather than the sources under tsx. */
export const RUNNING_COMPILED = import.meta.filename.endsWith('.js');

/** The tree this file belongs to: the compiled copy's root, or the repository. */
const TREE = resolve(import.meta.dirname, '..');

/** The repository (the compiled copy lives inside it, so packages resolve from node_modules). */
export const REPO = TREE.includes(`${sep}${BUILD_DIR}${sep}`)
  ? TREE.slice(0, TREE.indexOf(`${sep}${BUILD_DIR}${sep}`))
  : TREE;

/** Node arguments that run `script` (a repository path such as 'bench/sink.ts') the way this process runs. */
export function scriptArgs(script: string): string[] {
  return RUNNING_COMPILED ? [join(TREE, script.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', join(REPO, script)];
}

/**
 * The container image's entry: the bundle (tools/bundle.ts) compileBench writes beside the compiled
 * tree; undefined under tsx (--from-source), where there is none.
 */
export function bundleEntry(): string | undefined {
  return RUNNING_COMPILED ? join(TREE, 'bundle', 'main.js') : undefined;
}

/**
 * Compiles src/ and bench/ into a fresh directory, and bundles the daemon into its bundle/ as the
 * image does; returns it (remove it with removeBuild). Throws, leaving nothing, when either fails.
 */
export async function compileBench(): Promise<string> {
  const out = join(REPO, BUILD_DIR, `run-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(REPO, 'tsconfig.bench.json'), '--outDir', out], {
      cwd: REPO,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    // Only the runner bundles: the scenarios' processes never load esbuild.
    const { bundle } = await import('../tools/bundle.js');
    await bundle(join(out, 'bundle'));
  } catch (err) {
    // What tsc emitted before it failed is no use to anyone.
    removeBuild(out);
    throw err;
  }
  return out;
}

export function removeBuild(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
