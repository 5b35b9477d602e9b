// The image and the Kubernetes files say what the README says of them: the command on the PATH, a
// `docker run` example that starts (a key and a control token), one pullable image name in both
// manifests, and every bridge container locked down. There is no Docker engine in CI; these read the files.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const ROOT = resolve(import.meta.dirname, '../../..');
const read = (f: string): string => readFileSync(resolve(ROOT, f), 'utf8');

interface Container {
  name: string;
  image: string;
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean };
}
interface Workload {
  kind?: string;
  spec?: {
    template?: {
      spec?: { securityContext?: { runAsNonRoot?: boolean }; containers?: Container[]; initContainers?: Container[] };
    };
  };
}

/** The bridge's containers of a manifest, with their pod's security context. */
function bridgeContainers(file: string): Array<{ c: Container; podNonRoot: boolean | undefined }> {
  return parseAllDocuments(read(file))
    .map((d) => d.toJS() as Workload | null)
    .filter((d) => d?.kind === 'Deployment')
    .flatMap((d) => {
      const pod = d!.spec!.template!.spec!;
      return [...(pod.containers ?? []), ...(pod.initContainers ?? [])]
        .filter((c) => c.image.includes('browser-telemetry-bridge'))
        .map((c) => ({ c, podNonRoot: pod.securityContext?.runAsNonRoot }));
    });
}

describe('the container image and the Kubernetes files', () => {
  const dockerfile = read('Dockerfile');

  it('the image puts browser-telemetry-bridge on the PATH (docker exec … browser-telemetry-bridge top)', () => {
    // The daemon's image runs the bundle (tools/bundle.ts keeps main.ts's first line); the devkit's, dist/.
    expect(dockerfile).toMatch(/^RUN .*ln -s \/app\/bundle\/main\.js \/usr\/local\/bin\/browser-telemetry-bridge$/m);
    expect(dockerfile).toMatch(
      /^RUN .*ln -sf \/app\/dist\/cli\/main\.js \/usr\/local\/bin\/browser-telemetry-bridge$/m,
    );
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", (?:"--[^"]+", )*"bundle\/main\.js"\]$/m);
    expect(read('src/cli/main.ts').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('the build installs without install scripts: the slim image has no python3 nor make for node-gyp', () => {
    // npm 11 runs `node-gyp rebuild` for better-sqlite3 (it ships a binding.gyp) despite its
    // prebuilt addon; node-gyp's configure needs python3 and make. By hand, with neither on the
    // PATH, `npm ci` fails there and `npm ci --ignore-scripts` then build, bundle and prune pass.
    const installs = dockerfile.split('\n').filter((line) => /^RUN .*\bnpm (ci|install)\b/.test(line));
    expect(installs.length).toBeGreaterThan(0);
    for (const line of installs) expect(line).toMatch(/--ignore-scripts/);
  });

  it("the Dockerfile's docker run example mounts the key file it names and sets a control token", () => {
    const example = dockerfile
      .split('\n')
      .filter((l) => l.startsWith('#   '))
      .join('\n');
    expect(example).toContain('-e BROWSER_API_KEY_FILE=/run/secrets/browser-api-key');
    expect(example).toContain(':/run/secrets/browser-api-key:ro"');
    expect(example).toMatch(/-e BRIDGE_CONTROL_TOKEN=/);
  });

  it('both manifests name the same image, from a registry, and lock down every bridge container', () => {
    const all = [
      ...bridgeContainers('config/kubernetes/sidecar.yaml'),
      ...bridgeContainers('config/kubernetes/replicas.yaml'),
    ];
    expect(all).toHaveLength(2);
    expect(new Set(all.map(({ c }) => c.image)).size).toBe(1);
    expect(all[0]!.c.image).toMatch(/^[a-z0-9.-]+\.[a-z]+\/.+:\d/);
    for (const { c, podNonRoot } of all) {
      expect(podNonRoot, c.name).toBe(true);
      expect(c.securityContext, c.name).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
      });
    }
  });

  it('the sidecar says what the README says: a refused API key makes the pod unready', () => {
    const sidecar = read('config/kubernetes/sidecar.yaml');
    expect(sidecar).not.toMatch(/503 only when the state volume/);
    expect(sidecar).toMatch(/refuses the API key/);
  });
});
