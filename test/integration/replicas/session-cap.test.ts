// max_sessions with the shared store (a real `run` process on PostgreSQL): the sessions a replica
// claims beyond its cap are not read; a warning names them, and they are followed, every event
// delivered, once a session it follows ends (ownership offers them again at each pass).
import { describe, expect, it } from 'vitest';
import { until } from '../../helpers/harness.js';
import { replicaWorld } from './replicas.js';

const world = replicaWorld();

describe('replicas sharing a PostgreSQL store: max_sessions', () => {
  it('a replica at its cap leaves the claimed excess waiting, and follows it when room frees', async () => {
    const ids = ['k1', 'k2', 'k3'];
    const { h, cl } = await world.setup('cap', ids, 0, { env: { BRIDGE_MAX_SESSIONS: '2' } });
    for (const id of ids) h.sim.session(id)!.emit(10);
    cl.start('r1');
    const warning = (): Record<string, unknown> | undefined =>
      cl.replicas
        .get('r1')!
        .output()
        .split('\n')
        .filter((l) => l.includes('max_sessions are followed'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)[0];
    await until(() => warning() !== undefined, 'the warning naming the session left waiting', 30_000);
    const waiting = (warning()!.sessions as string[])[0]!;
    expect(ids).toContain(waiting);
    const followed = ids.filter((id) => id !== waiting);
    await until(() => h.tally(followed).every((t) => t.unique === 10), 'the followed sessions delivered', 30_000);
    expect(h.tally([waiting])[0]!.unique).toBe(0);

    h.sim.session(followed[0]!)!.end();
    await until(() => h.tally([waiting])[0]!.unique === 10, 'the waiting session followed once room freed', 30_000);
  });
});
