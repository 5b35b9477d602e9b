// The sources as the tests' child processes run them: src/ compiled file for file into a temporary
// directory once per test run (vitest's globalSetup, below), so that a spawned `run`, `validate` or
// `simulate` loads plain JavaScript the way `npm start` loads dist/. Under tsx every child resolved
// and loaded its few hundred modules through tsx's hooks: 0.7-0.9 s for `run`'s against 0.15-0.2 s
// compiled, paid by each of the hundreds of daemons and CLIs the integration tests start. The
// transform is esbuild's, as tsx's is; only the loading differs. Outside a vitest run (a script that
// imports a test helper) nothing is provided, and children run the sources under tsx as before.
import { chmodSync, cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The directory holding src/ compiled (a package root: package.json, proto/, node_modules beside it). */
    compiledSources?: string;
  }
}

const REPO = resolve(import.meta.dirname, '../..');

/**
 * Node arguments that run `file` of src/ (e.g. 'cli/main.ts'): its compiled copy when this test run
 * compiled the sources, else the source under tsx.
 */
export function sourceEntry(file: string): string[] {
  const root = compiledRoot();
  return root === undefined
    ? ['--import', 'tsx', join(REPO, 'src', file)]
    : [join(root, 'src', file.replace(/\.ts$/, '.js'))];
}

function compiledRoot(): string | undefined {
  try {
    return inject('compiledSources');
  } catch {
    return undefined;
  }
}

/** vitest's globalSetup: compiles src/ (again on every rerun in watch mode) and removes it at the end. */
export default async function setup(project: TestProject): Promise<() => void> {
  // A package root of its own, as the repository is for dist/: package.json for the version, proto/
  // for the receiver, node_modules for the packages. Others may read it: some tests run the CLI as
  // another user.
  const root = mkdtempSync(join(tmpdir(), 'bridge-compiled-'));
  chmodSync(root, 0o755);
  cpSync(join(REPO, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  symlinkSync(join(REPO, 'proto'), join(root, 'proto'), 'dir');
  const compile = async (): Promise<void> => {
    const { build } = await import('esbuild');
    const entryPoints = (await readdir(join(REPO, 'src'), { recursive: true }))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(REPO, 'src', f));
    rmSync(join(root, 'src'), { recursive: true, force: true });
    await build({
      absWorkingDir: REPO,
      entryPoints,
      outbase: join(REPO, 'src'),
      outdir: join(root, 'src'),
      bundle: false,
      format: 'esm',
      platform: 'node',
      target: 'node22.15',
      logLevel: 'warning',
    });
  };
  await compile();
  project.provide('compiledSources', root);
  project.onTestsRerun(compile);
  return () => rmSync(root, { recursive: true, force: true });
}
