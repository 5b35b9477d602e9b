// What config/kubernetes/sidecar.yaml gives the bridge's process (NODE_OPTIONS, and the flags its
// command gives node): the sidecar benchmark runs the bridge with it, and a test runs the bundle
// with it, so the figures and the test follow the manifest.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO } from './compiled.js';
import { nodeFlagsOf } from './image-node-options.js';

interface Container {
  name: string;
  command?: string[];
  env?: { name: string; value?: string }[];
}

/** The bridge's container in config/kubernetes/sidecar.yaml. */
function bridgeContainer(): Container {
  for (const doc of parseAllDocuments(readFileSync(join(REPO, 'config/kubernetes/sidecar.yaml'), 'utf8'))) {
    const spec = (doc.toJS() as { spec?: { template?: { spec?: { initContainers?: Container[] } } } } | null)?.spec;
    const bridge = spec?.template?.spec?.initContainers?.find((c) => c.name === 'telemetry-bridge');
    if (bridge) return bridge;
  }
  throw new Error('config/kubernetes/sidecar.yaml has no telemetry-bridge container');
}

/** The NODE_OPTIONS config/kubernetes/sidecar.yaml gives the bridge's container ('' if none). */
export function sidecarNodeOptions(): string {
  return bridgeContainer().env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '';
}

/**
 * The flags the container's command gives node before the script. The manifest must name a
 * command of node: without one the image's entrypoint (and its flags) would run, which this
 * cannot see.
 */
export function sidecarCommandFlags(): string[] {
  const command = bridgeContainer().command;
  if (command?.[0] !== 'node') throw new Error('the sidecar manifest runs no `command: ["node", …]`');
  return nodeFlagsOf(command);
}
