// Many sessions refused at once by the service (a revoked key, an auth backend that is down, a
// 429 with one Retry-After for everybody) must not come back at once, again and again: a bridge
// with thousands of sessions would hit the service with all of them in the same millisecond every
// `upstream.backoff.auth` (or Retry-After). A loopback front answers every stream request with the
// refusal and notes when each session asked; a session's later attempts must spread out.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
let front: Server | undefined;
afterEach(async () => {
  front?.closeAllConnections();
  await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
  front = undefined;
  await h?.close();
  h = undefined;
});

/** A service that refuses every request with `status` (and `headers`); the times each session's stream was asked. */
async function refusingFront(
  status: number,
  headers: Record<string, string> = {},
): Promise<{ url: string; asked: Map<string, number[]> }> {
  const asked = new Map<string, number[]>();
  front = createServer((req, res) => {
    const id = /^\/browsers\/([^/?]+)\/telemetry\/stream/.exec(req.url ?? '')?.[1];
    if (id !== undefined) asked.set(id, [...(asked.get(id) ?? []), performance.now()]);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ code: status === 429 ? 'rate_limited' : 'unauthorized', message: 'no' }));
  });
  await new Promise<void>((r) => front!.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(front.address() as AddressInfo).port}`, asked };
}

const ids = Array.from({ length: 30 }, (_, i) => `herd-${i}`);

/** How far apart the sessions' `n`th requests came, in ms. */
function spreadOf(asked: Map<string, number[]>, n: number): number {
  const at = ids.map((id) => asked.get(id)![n]!);
  return Math.max(...at) - Math.min(...at);
}

describe('sessions refused all at once', () => {
  it('401: retried at upstream.backoff.auth, each session at its own moment', async () => {
    h = await harness();
    const { url, asked } = await refusingFront(401);
    const auth = 1_000;
    await h.startBridge(
      {
        ...FAST,
        sessions: ids,
        upstream: { idle_timeout: '3s', backoff: { initial: '50ms', max: '200ms', auth: `${auth}ms` } },
      },
      { BROWSER_API_URL: url },
    );
    await until(() => ids.every((id) => (asked.get(id)?.length ?? 0) >= 4), 'four attempts by every session', 20_000);
    // The first request and the quick second one come together; after two waits of `auth` the
    // sessions must be spread over a good part of it (in lockstep they stay within a few ms).
    expect(spreadOf(asked, 3)).toBeGreaterThan(auth / 4);
  }, 30_000);

  it('429 with one Retry-After for everybody: never sooner than asked, not all at the same moment', async () => {
    h = await harness();
    const { url, asked } = await refusingFront(429, { 'retry-after': '1' });
    await h.startBridge({ ...FAST, sessions: ids }, { BROWSER_API_URL: url });
    await until(() => ids.every((id) => (asked.get(id)?.length ?? 0) >= 3), 'three attempts by every session', 20_000);
    for (const id of ids) {
      const [a, b, c] = asked.get(id)!;
      expect(b! - a!).toBeGreaterThanOrEqual(990);
      expect(c! - b!).toBeGreaterThanOrEqual(990);
    }
    // Each wait is the Retry-After and up to min(half of it, backoff.max = 200 ms) more, so a
    // session's third request is 0-400 ms later than lockstep's (within a few ms). Over 30 sessions
    // the spread was under 250 ms once in 24 (4 %, and once in CI); under 150 ms once in 200,000.
    expect(spreadOf(asked, 2)).toBeGreaterThan(150);
  }, 30_000);
});
