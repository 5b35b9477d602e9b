// What config/kubernetes/sidecar.yaml gives the bridge's process: the sidecar benchmark runs the
// bridge with it, and a test runs the bundle with it, so the figures and the test follow the manifest.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO } from './compiled.js';

/** The NODE_OPTIONS config/kubernetes/sidecar.yaml gives the bridge's container ('' if none). */
export function sidecarNodeOptions(): string {
  interface Container {
    name: string;
    env?: { name: string; value?: string }[];
  }
  for (const doc of parseAllDocuments(readFileSync(join(REPO, 'config/kubernetes/sidecar.yaml'), 'utf8'))) {
    const spec = (doc.toJS() as { spec?: { template?: { spec?: { initContainers?: Container[] } } } } | null)?.spec;
    const bridge = spec?.template?.spec?.initContainers?.find((c) => c.name === 'telemetry-bridge');
    if (bridge) return bridge.env?.find((e) => e.name === 'NODE_OPTIONS')?.value ?? '';
  }
  return '';
}
