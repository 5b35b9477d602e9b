// Starts the benchmark's peers as child processes (so they do not share the bridge's event loop):
// the simulator of the session service, the OTLP sink and the parse-only ceiling reader. Each
// prints one JSON line when ready ({"url": ...}) or, for the ceiling, when done. Every child is
// killed when this process exits, whichever way it exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { SinkStats } from './sink-tally.js';
import { formatPeerArgs } from './scenario-context.js';
import { REPO, scriptArgs } from './compiled.js';
import { request } from '../src/util/node-http.js';
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface Peer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Runs `script` (a .ts file of this repository) as this process runs: compiled, or under tsx
 * (compiled.ts); resolves with its first stdout line.
 */
export function spawnScript(script: string, args: string[] = []): { child: ChildProcess; firstLine: Promise<string> } {
  // BENCH_SIM_NODE_FLAGS: node/V8 flags for the simulator's process alone (e.g. --cpu-prof
  // --cpu-prof-dir=DIR to see what the load generator costs; it shares the machine with the bridge).
  const flags = script.startsWith('src/devkit/simulator/')
    ? (process.env.BENCH_SIM_NODE_FLAGS ?? '').split(' ').filter(Boolean)
    : [];
  const child = spawn(process.execPath, [...flags, ...scriptArgs(script), ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const rl = createInterface({ input: child.stdout });
  const firstLine = new Promise<string>((res, rej) => {
    rl.once('line', res);
    child.once('exit', (code, signal) => rej(new Error(`${script} exited (${signal ?? code}) before answering`)));
  });
  return { child, firstLine };
}

export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  return new Promise((r) => {
    if (child.exitCode !== null || child.signalCode !== null) return r();
    const hard = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(hard);
      r();
    });
    child.kill('SIGTERM');
  });
}

export async function startPeer(script: string, args: string[] = []): Promise<Peer> {
  const { child, firstLine } = spawnScript(script, args);
  try {
    const url = (JSON.parse(await firstLine) as { url: string }).url;
    return { url, child, stop: () => stopChild(child) };
  } catch (err) {
    await stopChild(child);
    throw err;
  }
}

/**
 * CPU seconds (user + system) a peer's process has used so far, from /proc/<pid>/stat (Linux; in
 * clock ticks of 10 ms); null where it cannot be read. Read from outside, so the peer reports it
 * without knowing it is measured.
 */
export function peerCpuSeconds(child: ChildProcess): number | null {
  try {
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name and state.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  // A GET (stats, counts) is asked again once when the connection failed: a kept-alive socket the
  // peer closes just as a request goes out on it fails the request, and the benchmark polls its
  // peers every 100 ms for minutes. A POST changes something and is not repeated.
  const { status, text } = await send(method, url, body).catch((err: unknown) => {
    if (method !== 'GET') throw err;
    return send(method, url, body);
  });
  if (status < 200 || status > 299) throw new Error(`${method} ${url}: ${status} ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

/**
 * One request through node:http, not fetch: the bridge under test runs in this process, and the
 * first fetch loads Node's bundled undici, 26–34 MiB of RSS (Node 24.21, 20 requests to a local
 * server, RSS after a full collection) that the bridge itself never loads but every RSS figure
 * of the in-process scenarios counted.
 */
function send(method: string, url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body !== undefined ? JSON.stringify(body) : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: payload !== undefined ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** POST to the simulator's control API (/_sim/...). */
export function simControl(simUrl: string, path: string, body?: unknown): Promise<unknown> {
  return call('POST', `${simUrl}/_sim${path}`, body);
}

/** GET from the simulator's control API. */
export function simGet<T>(simUrl: string, path: string): Promise<T> {
  return call<T>('GET', `${simUrl}/_sim${path}`);
}

/** Events the simulator generated over all its sessions. */
export async function simProduced(simUrl: string): Promise<number> {
  const sessions = await simGet<Array<{ emitted: number }>>(simUrl, '/sessions');
  return sessions.reduce((n, s) => n + s.emitted, 0);
}

export function sinkStats(sinkUrl: string): Promise<SinkStats & { traces: { requests: number; bytes: number } }> {
  return call('GET', `${sinkUrl}/_sink/stats`);
}

/** From now on the sink refuses every export request with `status` (an outage). */
export async function sinkFail(sinkUrl: string, status = 503): Promise<void> {
  await call('POST', `${sinkUrl}/_sink/fail?status=${status}`);
}

/** The sink times the events produced from now on apart too (SinkStats.steadyLatency). */
export async function sinkSteady(sinkUrl: string): Promise<void> {
  await call('POST', `${sinkUrl}/_sink/steady`);
}

export async function sinkOk(sinkUrl: string): Promise<void> {
  await call('POST', `${sinkUrl}/_sink/ok`);
}

/**
 * A simulator with `perSession` events already waiting in the replay buffer of each session of
 * `ids` (created with `spec`), and a sink: the start of every burst. Both are pushed onto `peers`
 * as they start, so the caller stops them however this ends.
 */
export async function startWaitingPeers(
  peers: Peer[],
  ids: string[],
  perSession: number,
  spec: object,
): Promise<{ sim: Peer; sink: Peer }> {
  const sim = await startPeer(
    'src/devkit/simulator/main.ts',
    formatPeerArgs({ port: 0, buffer: perSession + 10, 'keepalive-ms': 15_000 }),
  );
  peers.push(sim);
  const sink = await startPeer('bench/sink.ts');
  peers.push(sink);
  for (const id of ids) {
    await simControl(sim.url, `/sessions/${id}`, spec);
    await simControl(sim.url, `/sessions/${id}/emit?count=${perSession}`);
  }
  return { sim, sink };
}
