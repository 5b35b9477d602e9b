// What the container image gives the bridge's process: the in-process scenarios run with it, so
// the heavy mix's figures are those of the bridge as it ships (the sidecar follows its manifest,
// bench/sidecar-manifest.ts). BENCH_BRIDGE_NODE_FLAGS replaces it; set it empty for V8's defaults.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './compiled.js';

/** The NODE_OPTIONS the image runs with (the Dockerfile's; none: []), as node flags. */
export function imageNodeFlags(): string[] {
  return dockerfileNodeOptions(readFileSync(join(REPO, 'Dockerfile'), 'utf8'))
    .split(' ')
    .filter(Boolean);
}

/**
 * NODE_OPTIONS as the image's last stage sees it, unquoted: its own ENV, or that of the stage it is
 * built FROM (a stage inherits its base stage's environment), and so on.
 */
export function dockerfileNodeOptions(dockerfile: string): string {
  const stages = dockerfile
    .split(/^(?=FROM\s)/m)
    .filter((text) => text.startsWith('FROM'))
    .map((text) => {
      const head = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(text);
      // Comment lines may name the variable too (the Dockerfile explains its value above the ENV).
      const code = text
        .split('\n')
        .filter((line) => !line.trimStart().startsWith('#'))
        .join('\n');
      const value = /\bNODE_OPTIONS=("([^"]*)"|(\S*))/.exec(code);
      return { base: head?.[1], name: head?.[2], options: value ? (value[2] ?? value[3] ?? '') : undefined };
    });
  const seen = new Set<object>();
  for (let stage = stages.at(-1); stage !== undefined && !seen.has(stage);) {
    if (stage.options !== undefined) return stage.options;
    seen.add(stage);
    const base = stage.base;
    stage = stages.find((s) => s.name !== undefined && s.name === base);
  }
  return '';
}
