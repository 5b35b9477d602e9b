// The real-browser tests' launcher (chromium.ts) with a stand-in executable: when the browser's
// DevTools connection fails, the failure carries what the browser said on stderr, the one clue to
// why a browser died on a loaded machine.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startChromium } from './chromium.js';

let dir: string;
let server: Server | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fake-chromium-'));
});
afterEach(async () => {
  if (server) await new Promise((r) => server!.close(r));
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A "browser" that keeps its arguments, writes `said` on stderr, announces DevTools at `port`, then waits to be killed. */
function fakeBrowser(said: string, port: number): string {
  const path = join(dir, 'chromium');
  const script = [
    `require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'argv.json'))}, JSON.stringify(process.argv));`,
    `process.stderr.write(${JSON.stringify(said)} + '\\n');`,
    `process.stderr.write('DevTools listening on ws://127.0.0.1:${port}/devtools/browser/x\\n');`,
    'setInterval(() => undefined, 1000);',
  ].join('\n');
  writeFileSync(path, `#!${process.execPath}\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('startChromium', () => {
  it("a DevTools connection that fails rejects with the browser's stderr, and stop() removes its profile", async () => {
    // Accepts and drops every connection: the WebSocket handshake fails.
    const s = createServer((socket) => socket.destroy());
    server = s;
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const browser = startChromium(fakeBrowser('[fatal] out of shared memory', (s.address() as AddressInfo).port));
    try {
      const err = await browser.connect().then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/DevTools connection/);
      expect(err?.message).toContain('[fatal] out of shared memory');
    } finally {
      await browser.stop();
    }
    const args = JSON.parse(readFileSync(join(dir, 'argv.json'), 'utf8')) as string[];
    const profile = args.find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
    expect(profile).toBeDefined();
    expect(existsSync(profile!)).toBe(false);
  });
});
