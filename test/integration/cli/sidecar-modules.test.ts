// What a sidecar-shaped `run` (one session, plain HTTP to the service and the collector, SQLite,
// no configuration file, traces off, no discovery) leaves unloaded. Each of these costs RSS on
// Node 24 and is loaded only when a deployment uses it; docs/benchmarks.md has the figures.
// A child process, because the module list is the process's; a preload records what the bridge's
// files import and, at exit, the built-in modules the process loaded.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, until, type Harness } from '../../helpers/harness.js';
import { startCli } from './cli-process.js';

interface Recorded {
  imports: { specifier: string; from: string }[];
  builtins: string[];
}

let h: Harness;

beforeEach(async () => {
  h = await harness();
  h.sim.createSession('s1').produce(20);
});

afterEach(async () => {
  await h.close();
});

describe('a sidecar-shaped run', () => {
  it('delivers without loading the modules only other deployments need', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'sidecar-modules-')), 'recorded.json');
    const hook = pathToFileURL(join(import.meta.dirname, 'record-imports.mjs')).href;
    const bridge = startCli(
      ['run'],
      h.env({ BRIDGE_SESSIONS: 's1', NODE_OPTIONS: `--import=${hook}`, RECORD_IMPORTS_TO: out }),
    );
    await until(() => h.receiver.records.length >= 20, 'the 20 events delivered');
    bridge.child.kill('SIGTERM');
    expect((await bridge.done).code).toBe(0);
    const recorded = JSON.parse(readFileSync(out, 'utf8')) as Recorded;
    // The recorder saw the bridge's imports and the process's built-ins at all.
    expect(recorded.imports).toContainEqual({ specifier: 'node:net', from: 'src/util/peer-connection.ts' });
    expect(recorded.builtins).toContain('net');

    // Optional packages, resolved by anyone: the PostgreSQL client (a shared store), gRPC and
    // protobufjs (the gRPC exporter), yaml (a configuration file), pino-pretty (a terminal).
    const optional = /^(pg|pg-[a-z-]+|@grpc\/.*|protobufjs(\/.*)?|yaml|pino-pretty)$/;
    expect(recorded.imports.filter((i) => optional.test(i.specifier))).toEqual([]);
    // Built-ins whose ES import costs RSS on Node 24 (a namespace import reads every lazy getter):
    // the bridge's files take them with process.getBuiltinModule, when they need them.
    const eager = /^node:(http|util|crypto|tls|https|zlib)$/;
    expect(recorded.imports.filter((i) => i.from.startsWith('src/') && eager.test(i.specifier))).toEqual([]);
    // TLS (about 7 MiB) only for an https:// peer or configured TLS files, zlib only for gzip
    // (compression is off by default); undici never.
    expect(recorded.builtins.filter((m) => /^(tls|https|_tls_wrap|zlib|internal\/deps\/undici\/.*)$/.test(m))).toEqual(
      [],
    );
  });
});
