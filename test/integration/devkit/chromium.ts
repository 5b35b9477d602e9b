// A headless Chromium for real-browser tests, driven over the DevTools protocol (CDP) on loopback:
// started with a fresh profile in a temp dir, connected over its browser WebSocket with flat
// sessions, stopped (killed if need be) and its profile removed even when the test failed.
//
// `failed` rejects once the browser exits or the protocol connection ends, with the browser's last
// stderr: a test races every wait against it, so a browser that died under load (or a call it
// refused) fails the test at once with its reason instead of waiting out the test's time limit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Chromium's executable, if there is one: CHROMIUM_PATH when it is set (and then only it: a browser
 * asked for by path that does not run is no reason to test another one), else chromium or
 * chromium-browser on PATH.
 */
export function findChromium(): string | undefined {
  const asked = process.env.CHROMIUM_PATH;
  const candidates = asked !== undefined && asked !== '' ? [asked] : ['chromium', 'chromium-browser'];
  return candidates.find((c) => spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0);
}

/** Chromium's version line (`Chromium 150.0.7871.100 …`), for a test's name or message. */
export function chromiumVersion(executable: string): string {
  return spawnSync(executable, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** A protocol event; `sessionId` names the target session it came from (flat sessions). */
export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

export interface CdpClient {
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>>;
  on(listener: (event: CdpEvent) => void): void;
}

function cdpClient(ws: WebSocket): CdpClient {
  let id = 0;
  const pending = new Map<number, (msg: { result?: unknown; error?: unknown }) => void>();
  const listeners: Array<(event: CdpEvent) => void> = [];
  ws.addEventListener('message', (e: MessageEvent) => {
    const msg = JSON.parse(String(e.data)) as { id?: number; method?: string; result?: unknown; error?: unknown };
    if (msg.id !== undefined) {
      pending.get(msg.id)?.(msg);
      pending.delete(msg.id);
    } else if (msg.method !== undefined) for (const l of listeners) l(msg as CdpEvent);
  });
  return {
    send(method, params = {}, sessionId) {
      const n = ++id;
      ws.send(JSON.stringify({ id: n, method, params, ...(sessionId === undefined ? {} : { sessionId }) }));
      return new Promise((resolve, reject) =>
        pending.set(n, (msg) =>
          msg.error !== undefined
            ? reject(new Error(`${method}: ${JSON.stringify(msg.error)}`))
            : resolve(msg.result as Record<string, unknown>),
        ),
      );
    },
    on: (l) => listeners.push(l),
  };
}

export interface ChromiumHandle {
  /** Rejects once the browser exits or its DevTools connection ends; never resolves. */
  readonly failed: Promise<never>;
  /** Waits for the browser's DevTools address and connects to it. */
  connect(): Promise<CdpClient>;
  /** Closes the browser (SIGKILL if it still runs), waits for its exit, removes its profile. Idempotent. */
  stop(): Promise<void>;
}

/** Starts headless Chromium on about:blank with a fresh profile; `args` are added to the usual flags. */
export function startChromium(executable: string, args: readonly string[] = []): ChromiumHandle {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-test-'));
  const browser: ChildProcess = spawn(
    executable,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      // No update checks or other background fetches: they would reach a test's server through a
      // host-resolver rule, and they cost CPU on a loaded machine.
      '--disable-background-networking',
      '--disable-component-update',
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      ...args,
      'about:blank',
    ],
    // A process group of its own: stop() kills the browser's helpers (zygote, renderers, GPU and
    // network services) with it, not only the process it started as.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  /** What Chromium wrote on stderr so far (its DevTools address, or why it stopped). */
  let stderr = '';
  browser.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<void>((resolve) => browser.once('exit', () => resolve()));
  let rejectFailed: (err: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (rejectFailed = reject));
  // Only a wait that loses the race to it observes this rejection.
  failed.catch(() => undefined);
  browser.once('exit', (code, signal) =>
    rejectFailed(new Error(`chromium exited (${String(code ?? signal)}): ${stderr.slice(-2000)}`)),
  );
  let ws: WebSocket | undefined;
  let stopped: Promise<void> | undefined;

  async function connect(): Promise<CdpClient> {
    // Chromium prints its DevTools address on stderr once it listens.
    const wsUrl = await Promise.race([
      failed,
      new Promise<string>((resolve) => {
        const look = (): void => {
          const m = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
          if (m !== null) resolve(m[1]!);
          else browser.stderr!.once('data', () => setImmediate(look));
        };
        look();
      }),
    ]);
    const socket = new WebSocket(wsUrl);
    ws = socket;
    // The connection usually ends before the browser's exit is seen: its stderr says why here too.
    const ended = (how: string) => () =>
      rejectFailed(new Error(`the DevTools connection ${how}: ${stderr.slice(-2000)}`));
    socket.addEventListener('close', ended('closed'));
    socket.addEventListener('error', ended('failed'));
    await Promise.race([failed, new Promise((resolve) => socket.addEventListener('open', resolve))]);
    return cdpClient(socket);
  }

  async function stopOnce(): Promise<void> {
    ws?.close();
    if (browser.exitCode === null && browser.signalCode === null) {
      killGroup('SIGKILL');
      await exit;
    }
    // Helpers outside the group (crash reporting) may still write in the profile for a moment after
    // the browser is gone: a removal that met a file appearing meanwhile is tried again.
    killGroup('SIGKILL');
    rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  function killGroup(signal: NodeJS.Signals): void {
    try {
      if (browser.pid !== undefined) process.kill(-browser.pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  return {
    failed,
    connect,
    stop: () => (stopped ??= stopOnce()),
  };
}

/**
 * A new page target on about:blank and a flat session on it, over `cdp` of `browser`: both calls end,
 * with the browser's reason, when it dies meanwhile.
 */
export async function openBlankPage(
  browser: ChromiumHandle,
  cdp: CdpClient,
): Promise<{ targetId: string; sessionId: string }> {
  const { targetId } = (await Promise.race([
    browser.failed,
    cdp.send('Target.createTarget', { url: 'about:blank' }),
  ])) as {
    targetId: string;
  };
  const { sessionId } = (await Promise.race([
    browser.failed,
    cdp.send('Target.attachToTarget', { targetId, flatten: true }),
  ])) as { sessionId: string };
  return { targetId, sessionId };
}

/** What a real-browser test is run against, for its name: the version, or why it is skipped. */
export function chromiumUnderTest(executable: string | undefined): string {
  return executable === undefined
    ? 'Chromium (none found: CHROMIUM_PATH, chromium, chromium-browser; skipped)'
    : chromiumVersion(executable);
}
