// Discovery with two replicas (real `run` processes) on one PostgreSQL store: the cluster polls the
// session list once per interval, not once per replica, and every discovered session is owned and
// delivered once.
import { describe, expect, it } from 'vitest';
import { sleep, until } from '../../helpers/harness.js';
import { replicaWorld } from './replicas.js';

const world = replicaWorld();
const INTERVAL_MS = 500;

describe('replicas sharing a PostgreSQL store: discovery', () => {
  it('polls once per interval for the whole cluster and owns each discovered session once', async () => {
    const { h, cl } = await world.setup('discovery', [], 0, {
      follow: [],
      env: { BRIDGE_DISCOVER: 'true', BRIDGE_DISCOVER_TAGS: 'team=a', BRIDGE_DISCOVER_INTERVAL: `${INTERVAL_MS}ms` },
    });
    cl.start('r1');
    cl.start('r2');
    // Both replicas are up once both hold a lease; then measure the list requests over a window.
    await until(
      () =>
        /sharing sessions/.test(cl.replicas.get('r1')!.output()) &&
        /sharing sessions/.test(cl.replicas.get('r2')!.output()),
      'both replicas running',
      30_000,
    );
    const ids: string[] = [];
    const before = h.sim.stats.listRequests;
    const windowMs = 8000;
    const started = Date.now();
    for (let i = 0; i < 8; i++) {
      const id = `d${i}`;
      const s = h.sim.createSession(id, { tags: { team: 'a' } });
      s.emit(30);
      ids.push(id);
      await sleep(windowMs / 8);
    }
    const requests = h.sim.stats.listRequests - before;
    const elapsed = Date.now() - started;
    // One page per poll (fewer than 100 matches). Two replicas polling on their own would make ~2×.
    const perInterval = requests / (elapsed / INTERVAL_MS);
    console.log(
      `discovery with 2 replicas: ${requests} list requests in ${elapsed} ms (${perInterval.toFixed(2)} per ${INTERVAL_MS} ms interval)`,
    );
    expect(perInterval).toBeLessThanOrEqual(1.3);
    expect(perInterval).toBeGreaterThanOrEqual(0.6);

    for (const id of ids) h.sim.session(id)!.end();
    await until(
      () => h.tally(ids).every((t) => t.missing === 0),
      'every event of every discovered session delivered',
      30_000,
    );
    for (const t of h.tally(ids)) expect(t).toMatchObject({ unique: 30, duplicates: 0 });
    const owners = await cl.checkpoints();
    expect([...owners.keys()].sort()).toEqual(ids);
    // Each session was claimed by exactly one replica: none saw it claimed by the other as well.
    const claimedBy = (r: string): number =>
      [
        ...cl.replicas
          .get(r)!
          .output()
          .matchAll(/"msg":"claimed sessions"[^\n]*"sessions":(\d+)|"sessions":(\d+)[^\n]*"msg":"claimed sessions"/g),
      ].reduce((n, m) => n + Number(m[1] ?? m[2]), 0);
    expect(claimedBy('r1') + claimedBy('r2')).toBe(ids.length);
  });
});
