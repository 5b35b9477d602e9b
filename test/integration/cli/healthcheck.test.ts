// The image's HEALTHCHECK script as the container runs it: a child process, configured by the
// environment and the file the daemon reads, asking a real socket.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceEntry } from '../../helpers/compiled-sources.js';
import { startCli } from './cli-process.js';

const ENTRY = sourceEntry('cli/healthcheck.ts');
const dir = mkdtempSync(join(tmpdir(), 'healthcheck-cli-'));
let server: Server;
let port: number;
let asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(req.url === '/healthz' ? 200 : 404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

function config(name: string, yaml: string): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

describe('node healthcheck.js', () => {
  it('asks where the configuration file says the daemon listens (a wildcard on loopback)', async () => {
    asked = [];
    const path = config('listen.yaml', `listen: 0.0.0.0:${port}\n`);
    const r = await startCli([], { BRIDGE_CONFIG: path }, ENTRY).done;
    expect(r).toMatchObject({ code: 0, stdout: `http://127.0.0.1:${port}/healthz: 200\n` });
    expect(asked).toEqual(['/healthz']);
    // The file named by --config, as `run` takes it.
    expect(await startCli(['--config', path], {}, ENTRY).done).toMatchObject({ code: 0 });
  });

  it('BRIDGE_LISTEN overrides the file, as for the daemon', async () => {
    const path = config('elsewhere.yaml', 'listen: 127.0.0.1:1\n');
    const r = await startCli([], { BRIDGE_CONFIG: path, BRIDGE_LISTEN: `127.0.0.1:${port}` }, ENTRY).done;
    expect(r).toMatchObject({ code: 0, stdout: `http://127.0.0.1:${port}/healthz: 200\n` });
    const down = await startCli([], { BRIDGE_CONFIG: path }, ENTRY).done;
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^http:\/\/127\.0\.0\.1:1\/healthz: /);
  });

  it('`listen: ""` in the file: the surface is off, the check passes and names the file', async () => {
    asked = [];
    const path = config('off.yaml', 'listen: ""\n');
    const r = await startCli([], { BRIDGE_CONFIG: path }, ENTRY).done;
    expect(r).toMatchObject({
      code: 0,
      stdout: `HTTP surface off (listen: "" in ${path}): healthy while the daemon process runs\n`,
    });
    expect(asked).toEqual([]);
  });

  it('a configuration file it cannot read fails the check and says why', async () => {
    const r = await startCli([], { BRIDGE_CONFIG: join(dir, 'missing.yaml') }, ENTRY).done;
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/ENOENT.*missing\.yaml/);
  });
});
