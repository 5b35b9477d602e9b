// Scaling a group of replicas 2 → 3 → 5 → 3 over one PostgreSQL store: after each step the
// owners are exactly the rendezvous placement over the live replicas, only the sessions whose
// preferred replica changed moved (about 1/N), and at the end nothing is missing.
import { describe, expect, it } from 'vitest';
import { exited, sleep } from '../../helpers/harness.js';
import { preferredOwner } from '../../../src/cluster/placement.js';
import { duplicateBound, IN_FLIGHT_PER_REPLICA, replicaWorld } from './replicas.js';

const world = replicaWorld();

describe('replicas sharing a PostgreSQL store', () => {
  it('scales 2 → 3 → 5 → 3 moving only the sessions whose preferred replica changed, with no loss', async () => {
    const ids = Array.from({ length: 24 }, (_, i) => `sc${i + 1}`);
    const { h: hh, cl } = await world.setup('scale', ids, 10);

    /** Waits until the owners are the placement over `live`; returns how many sessions changed owner since `before`. */
    async function settle(
      live: string[],
      before: Map<string, string | null>,
    ): Promise<{ moved: number; ms: number; owners: Map<string, string | null> }> {
      const start = Date.now();
      for (;;) {
        const owners = await cl.owners();
        if (ids.every((id) => owners.get(id) === preferredOwner(id, live))) {
          const moved = ids.filter((id) => before.get(id) !== owners.get(id)).length;
          return { moved, ms: Date.now() - start, owners };
        }
        if (Date.now() - start > 30_000)
          throw new Error(`placement over ${live.join(',')} not reached: ${JSON.stringify([...owners])}`);
        await sleep(100);
      }
    }

    cl.start('r1');
    cl.start('r2');
    let step = await settle(['r1', 'r2'], new Map());
    const report: string[] = [];
    const expectMoves = (live: string[], prev: string[]): number =>
      ids.filter((id) => preferredOwner(id, live) !== preferredOwner(id, prev)).length;

    for (const [next, prev] of [
      [
        ['r1', 'r2', 'r3'],
        ['r1', 'r2'],
      ],
      [
        ['r1', 'r2', 'r3', 'r4', 'r5'],
        ['r1', 'r2', 'r3'],
      ],
    ] as Array<[string[], string[]]>) {
      for (const r of next) if (!prev.includes(r)) cl.start(r);
      const s = await settle(next, step.owners);
      expect(s.moved).toBe(expectMoves(next, prev));
      report.push(`${prev.length} → ${next.length}: ${s.moved}/${ids.length} sessions moved in ${s.ms} ms`);
      step = s;
    }
    // Scale down: r4 and r5 stop cleanly, deliver what they hold, and release their sessions.
    for (const r of ['r4', 'r5']) cl.replicas.get(r)!.kill('SIGTERM');
    const down = await settle(['r1', 'r2', 'r3'], step.owners);
    expect(down.moved).toBe(expectMoves(['r1', 'r2', 'r3'], ['r1', 'r2', 'r3', 'r4', 'r5']));
    report.push(`5 → 3: ${down.moved}/${ids.length} sessions moved in ${down.ms} ms`);
    for (const r of ['r4', 'r5']) expect(await exited(cl.replicas.get(r)!)).toBe(0);
    console.log(`scaling: ${report.join('; ')}`);

    await sleep(1000);
    for (const id of ids) {
      hh.sim.session(id)!.produce(0);
      hh.sim.session(id)!.end();
    }
    const deadline = Date.now() + 30_000;
    while (!hh.tally(ids).every((t) => t.missing === 0) && Date.now() < deadline) await sleep(100);
    const t = hh.tally(ids);
    const produced = ids.reduce((n, id) => n + hh.sim.session(id)!.lastSeq, 0);
    const duplicates = t.reduce((n, x) => n + x.duplicates, 0);
    console.log(
      `scaling: ${produced} events, duplicates ${duplicates} (${duplicateBound(cl, 2).disruptions} disruptions)`,
    );
    for (const x of t) {
      expect(x.missing, `${x.sessionId} missing ${x.missingSample.join(',')}`).toBe(0);
      expect(x.gapRecords).toBe(0);
    }
    // At most what was in flight at each hand-over, and at the two replicas' stop (SIGTERM: their
    // drain is bounded by the grace period, so what is still in flight then stays spooled).
    const { bound, disruptions } = duplicateBound(cl, 2);
    expect(duplicates, `${disruptions} disruptions × ${IN_FLIGHT_PER_REPLICA} in flight`).toBeLessThanOrEqual(bound);
    await cl.stopAll();
  });
});
