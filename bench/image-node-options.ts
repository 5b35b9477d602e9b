// What the container image gives the bridge's process: the in-process scenarios run with it, so
// the heavy mix's figures are those of the bridge as it ships (the sidecar follows its manifest,
// bench/sidecar-manifest.ts). BENCH_BRIDGE_NODE_FLAGS replaces it; set it empty for V8's defaults.
// Two places carry node flags in the image: NODE_OPTIONS (what every node it starts gets) and the
// ENTRYPOINT's command line (V8 flags Node refuses in NODE_OPTIONS, such as --heap-growing-percent).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './compiled.js';

/** The node flags the image runs the daemon with: NODE_OPTIONS's, then the ENTRYPOINT's. */
export function imageNodeFlags(): string[] {
  const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
  return [...dockerfileNodeOptions(dockerfile).split(' ').filter(Boolean), ...dockerfileEntrypointFlags(dockerfile)];
}

interface Stage {
  base: string | undefined;
  name: string | undefined;
  /** The stage's instructions without comment lines (the Dockerfile explains values above them). */
  code: string;
}

function stagesOf(dockerfile: string): Stage[] {
  return dockerfile
    .split(/^(?=FROM\s)/m)
    .filter((text) => text.startsWith('FROM'))
    .map((text) => {
      const head = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(text);
      const code = text
        .split('\n')
        .filter((line) => !line.trimStart().startsWith('#'))
        .join('\n');
      return { base: head?.[1], name: head?.[2], code };
    });
}

/**
 * What `read` finds in the image's last stage, or else in the stage it is built FROM (a stage
 * inherits its base stage's environment and entrypoint), and so on; undefined if none has it.
 */
function lastStageValue<T>(dockerfile: string, read: (code: string) => T | undefined): T | undefined {
  const stages = stagesOf(dockerfile);
  const seen = new Set<Stage>();
  for (let stage = stages.at(-1); stage !== undefined && !seen.has(stage);) {
    const value = read(stage.code);
    if (value !== undefined) return value;
    seen.add(stage);
    const base = stage.base;
    stage = stages.find((s) => s.name !== undefined && s.name === base);
  }
  return undefined;
}

/** NODE_OPTIONS as the image's last stage sees it, unquoted ('' when no stage sets it). */
export function dockerfileNodeOptions(dockerfile: string): string {
  return (
    lastStageValue(dockerfile, (code) => {
      const value = /\bNODE_OPTIONS=("([^"]*)"|(\S*))/.exec(code);
      return value ? (value[2] ?? value[3] ?? '') : undefined;
    }) ?? ''
  );
}

/**
 * The flags the last stage's ENTRYPOINT (exec form, `["node", flags…, script]`) gives node before
 * its script; [] when it runs node without any, or something else than node.
 */
export function dockerfileEntrypointFlags(dockerfile: string): string[] {
  const argv = lastStageValue(dockerfile, (code) => {
    // The last ENTRYPOINT of a stage is the one that holds.
    const line = [...code.matchAll(/^ENTRYPOINT\s+(\[.*\])\s*$/gm)].at(-1);
    return line ? (JSON.parse(line[1]!) as string[]) : undefined;
  });
  return argv === undefined ? [] : nodeFlagsOf(argv);
}

/** The flags a command line `["node", flags…, script, args…]` gives node; [] for another program. */
export function nodeFlagsOf(argv: readonly string[]): string[] {
  if (argv[0] !== 'node') return [];
  const flags: string[] = [];
  for (const arg of argv.slice(1)) {
    if (!arg.startsWith('-')) break;
    flags.push(arg);
  }
  return flags;
}
