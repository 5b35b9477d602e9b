// Three real bridge replicas share one PostgreSQL store: the sessions are spread over them, and
// when one is killed with SIGKILL mid-stream its sessions stream again on the others within the
// failover bound — nothing missing, duplicates bounded by what was in flight, never a replay.
import { describe, expect, it } from 'vitest';
import { exited, sleep, until } from '../../helpers/harness.js';
import { duplicateBound, replicaWorld } from './replicas.js';

const world = replicaWorld();

describe('replicas sharing a PostgreSQL store', () => {
  it('spreads the sessions, and after kill -9 of a replica its sessions stream again elsewhere within 30 s with nothing missing', async () => {
    const ids = Array.from({ length: 9 }, (_, i) => `f${i + 1}`);
    const { h: hh, cl } = await world.setup('failover', ids, 40);
    for (const r of ['r1', 'r2', 'r3']) cl.start(r);

    // Every session owned, every replica owning some, and every session delivering.
    let owners = new Map<string, string | null>();
    const deadline = Date.now() + 30_000;
    for (;;) {
      owners = await cl.owners();
      const by = new Set(owners.values());
      if (ids.every((id) => owners.get(id)) && by.size === 3 && ids.every((id) => cl.count(id) > 0)) break;
      if (Date.now() > deadline)
        throw new Error(
          `not spread over three replicas: ${JSON.stringify([...owners])}\n${[...cl.replicas.values()].map((r) => r.output()).join('\n')}`,
        );
      await sleep(200);
    }
    // Exported as the replica that read it.
    await until(
      () => new Set(hh.receiver.records.map((r) => r.resource['service.instance.id'])).size === 3,
      'records from every replica',
      10_000,
    );
    const instances = new Set(hh.receiver.records.map((r) => r.resource['service.instance.id']));
    expect([...instances].sort()).toEqual(['r1', 'r2', 'r3']);

    // Kill the replica owning the most sessions.
    const tally = new Map<string, number>();
    for (const o of owners.values()) tally.set(o!, (tally.get(o!) ?? 0) + 1);
    const victim = [...tally.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    const orphaned = ids.filter((id) => owners.get(id) === victim);
    const seqAtKill = new Map(orphaned.map((id) => [id, cl.maxSeq(id)]));
    const killedAt = Date.now();
    cl.replicas.get(victim)!.kill('SIGKILL');
    await exited(cl.replicas.get(victim)!);

    // Streaming again elsewhere: every orphaned session delivers beyond what it had at the kill,
    // from a replica other than the victim.
    const resumed = new Map<string, number>();
    await until(
      () => {
        for (const id of orphaned) {
          if (
            !resumed.has(id) &&
            hh.receiver.records.some(
              (r) =>
                r.attributes['browser.session.id'] === id &&
                r.resource['service.instance.id'] !== victim &&
                Number(r.attributes['browser.telemetry.seq']) > seqAtKill.get(id)! + 40,
            )
          ) {
            resumed.set(id, Date.now() - killedAt);
          }
        }
        return resumed.size === orphaned.length;
      },
      "the killed replica's sessions to stream again elsewhere",
      45_000,
    );
    const failoverMs = Math.max(...resumed.values());
    console.log(
      `failover after kill -9 of ${victim} (${orphaned.length} sessions): ${failoverMs} ms (per session: ${[...resumed.values()].join(', ')} ms)`,
    );
    expect(failoverMs).toBeLessThanOrEqual(30_000);

    // End the sessions; the survivors deliver everything.
    await sleep(1000);
    for (const id of ids) {
      hh.sim.session(id)!.produce(0);
      hh.sim.session(id)!.end();
    }
    await until(() => hh.tally(ids).every((t) => t.missing === 0), 'every event delivered', 30_000).catch(
      (err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify(hh.tally(ids).map((t) => [t.sessionId, t.missing, t.missingSample.slice(0, 5)]))}`,
        );
      },
    );
    const t = hh.tally(ids);
    const produced = ids.reduce((n, id) => n + hh.sim.session(id)!.lastSeq, 0);
    const duplicates = t.reduce((n, x) => n + x.duplicates, 0);
    console.log(
      `delivered ${produced} events of ${ids.length} sessions; duplicates ${duplicates} (${orphaned.length} sessions failed over; ${duplicateBound(cl, 1).disruptions} disruptions)`,
    );
    for (const x of t) {
      expect(x.missing).toBe(0);
      expect(x.gapRecords).toBe(0);
    }
    // At most what was in flight: at the kill, and at each hand-over while the sessions spread.
    const { bound, disruptions } = duplicateBound(cl, 1);
    expect(
      duplicates,
      `${disruptions} disruptions: in flight, and (overflow) one checkpoint interval of acks, each`,
    ).toBeLessThanOrEqual(bound);
    await cl.stopAll();
  });

  it('run --until-ended on every replica: each exits 0 once no session anywhere is active and its spool is delivered', async () => {
    const ids = ['u1', 'u2', 'u3', 'u4'];
    const { h: hh, cl } = await world.setup('until_ended', ids, 50);
    const rs = ['r1', 'r2'].map((r) => cl.start(r, {}, ['run', '--until-ended']));
    await until(() => ids.every((id) => cl.count(id) > 0), 'every session to stream', 20_000);
    await sleep(1000);
    // Still running while sessions are active anywhere (a replica owning none must not exit).
    expect(rs.every((r) => r.exitCode === null)).toBe(true);
    for (const id of ids) {
      hh.sim.session(id)!.produce(0);
      hh.sim.session(id)!.end();
    }
    const codes = await Promise.all(rs.map((r) => exited(r)));
    expect(codes, rs.map((r) => r.output()).join('\n')).toEqual([0, 0]);
    for (const t of hh.tally(ids)) expect(t.missing).toBe(0);
  });
});
