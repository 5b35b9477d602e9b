// Starts the benchmark's peers as child processes (so they do not share the bridge's event loop):
// the simulator of the session service and the OTLP sink. Each prints {"url":...} when ready.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');

export interface Peer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startPeer(script: string, args: string[] = []): Promise<Peer> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(REPO, script), ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((res, rej) => {
    rl.once('line', (line) => {
      try {
        res((JSON.parse(line) as { url: string }).url);
      } catch (err) {
        rej(err as Error);
      }
    });
    child.once('exit', (code) => rej(new Error(`${script} exited with ${code}`)));
  });
  return {
    url, child,
    stop: () => new Promise((r) => {
      if (child.exitCode !== null) return r();
      child.once('exit', () => r());
      child.kill('SIGTERM');
    }),
  };
}

export async function simControl(simUrl: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${simUrl}/_sim${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`simulator control ${path}: ${res.status} ${await res.text()}`);
  return res.json().catch(() => ({}));
}
