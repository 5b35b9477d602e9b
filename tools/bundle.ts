// `npm run bundle [-- <outdir>]`: the daemon as a few ES module files for the container image
// (default outdir: bundle/). A sidecar `run` keeps each module's source text and its compiled
// functions in V8's heap for as long as it lives; one bundle without the whitespace, comments and
// per-module wrappers of ~150 compiled files takes about 1.5 MiB less RSS (docs/benchmarks.md, "The
// sidecar on a budget"). `npm start` and the npm package keep running dist/ (tsc), file for file.
//
// What stays as it was:
// - Lazy stays lazy: every `await import()` of the daemon (the other commands, pg, gRPC, TLS paths)
//   becomes a chunk of its own (`splitting`), loaded only when used, as in dist/.
// - Packages stay in node_modules (`packages: 'external'`): better-sqlite3 is a native addon, pino
//   starts its transports from its own files, and the optional ones may be absent.
// - The devkit is left out: the image does not carry it, and `demo`/`simulate`/`receive` then say
//   so (cli/devkit-absent.ts) just as with dist/ in the image.
// - Names stay (no identifier minification): stack traces, error names and log lines read as in dist/.
// - The ingest worker is an entry of its own next to the chunks: worker-group.ts starts it as
//   `new URL('./worker.js', import.meta.url)` from whichever chunk it lands in, so chunks and
//   entries share one directory (flat names).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');

/** Writes the bundle into `outdir` (emptied first); returns the entry files. */
export async function bundle(outdir: string): Promise<{ main: string; worker: string; healthcheck: string }> {
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: REPO,
    entryPoints: ['src/cli/main.ts', 'src/ingest/worker.ts', 'src/cli/healthcheck.ts'],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // package.json engines: Node 22.15 and later.
    target: 'node22.15',
    packages: 'external',
    external: ['../devkit/*'],
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return {
    main: join(outdir, 'main.js'),
    worker: join(outdir, 'worker.js'),
    healthcheck: join(outdir, 'healthcheck.js'),
  };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const out = await bundle(resolve(REPO, process.argv[2] ?? 'bundle'));
  process.stdout.write(`bundled: ${out.main}\n`);
}
