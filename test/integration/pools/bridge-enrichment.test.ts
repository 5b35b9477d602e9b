// Pool enrichment wired into the bridge: records that reach a real OTLP receiver carry the pool's
// attributes once the pool is resolved, and a pool that cannot be looked up does not stop delivery.
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';
import { makePool } from '../../../src/devkit/simulator/index.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const attr = (r: { attributes: Record<string, unknown> }, k: string): unknown => r.attributes[k];

describe('bridge pool enrichment', () => {
  it('adds browser.pool.id, browser.pool.name and cloud.region to delivered records', async () => {
    h = await harness();
    h.sim.addPool(makePool({ id: 'pool_e2e', name: 'scrapers', region: 'eu-west' }));
    h.sim.createSession('s1', { pool: 'scrapers' });
    h.sim.createSession('s2'); // configured below with a pool the service does not know
    const bridge = await h.startBridge({
      ...FAST,
      sessions: [
        { id: 's1', pool: 'scrapers' },
        { id: 's2', pool: 'no-such-pool' },
      ],
    });
    await until(() => bridge.pools.poolStatus().every((p) => p.state !== 'pending'), 'pool lookups');
    expect(bridge.pools.poolStatus()).toMatchObject([
      { ref: 'no-such-pool', state: 'error', lastError: { status: 404, code: 'not_found' } },
      { ref: 'scrapers', state: 'resolved', pool: { id: 'pool_e2e', name: 'scrapers', region: 'eu-west' } },
    ]);

    h.sim.session('s1')!.emit(20);
    h.sim.session('s2')!.emit(20);
    const of = (id: string) => h!.receiver.records.filter((r) => attr(r, 'browser.session.id') === id);
    await until(() => of('s1').length >= 20 && of('s2').length >= 20, 'records of both sessions');
    for (const r of of('s1')) {
      expect(attr(r, 'browser.pool.id')).toBe('pool_e2e');
      expect(attr(r, 'browser.pool.name')).toBe('scrapers');
      expect(attr(r, 'cloud.region')).toBe('eu-west');
    }
    // The failed lookup only costs the enrichment.
    for (const r of of('s2')) expect(attr(r, 'browser.pool.id')).toBeUndefined();

    await bridge.shutdown(Date.now() + 1000);
    expect(bridge.pools.poolStatus()).toHaveLength(2);
  });
});
