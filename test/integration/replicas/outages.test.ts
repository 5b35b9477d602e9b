// Replicas sharing a PostgreSQL store through outages: the database restarted with -m immediate
// (crash-like), one replica cut off from the database by a black-holing TCP proxy, and the
// collector down while a replica fails over. Each ends with every event delivered.
import { describe, expect, it } from 'vitest';
import { exited, sleep, until, type Harness } from '../../helpers/harness.js';
import { duplicateBound, IN_FLIGHT_PER_REPLICA, replicaWorld, type Cluster } from './replicas.js';
import { startTcpProxy } from './tcp-proxy.js';

const world = replicaWorld();

async function streaming(cl: Cluster, ids: string[], replicas: number): Promise<Map<string, string | null>> {
  await until(() => ids.every((id) => cl.count(id) > 0), 'every session to stream', 20_000);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const owners = await cl.owners();
    if (ids.every((id) => owners.get(id)) && new Set(owners.values()).size === replicas) return owners;
    if (Date.now() > deadline) throw new Error(`not spread: ${JSON.stringify([...owners])}`);
    await sleep(200);
  }
}

/**
 * Ends the sessions (unless `ended`), waits for every event, and bounds the duplicates by what was
 * in flight (`abrupt`: replicas killed; `stalled`: the one replica cut off, duplicateBound).
 */
async function endAndCount(
  hh: Harness,
  cl: Cluster,
  ids: string[],
  label: string,
  abrupt: number,
  ended = false,
  stalled?: { eventsPerSecond: number },
): Promise<void> {
  for (const id of ids) {
    if (ended) break;
    hh.sim.session(id)!.produce(0);
    hh.sim.session(id)!.end();
  }
  const deadline = Date.now() + 40_000;
  while (!hh.tally(ids).every((t) => t.missing === 0) && Date.now() < deadline) await sleep(100);
  const t = hh.tally(ids);
  const produced = ids.reduce((n, id) => n + hh.sim.session(id)!.lastSeq, 0);
  const duplicates = t.reduce((n, x) => n + x.duplicates, 0);
  const { bound, disruptions } = duplicateBound(cl, abrupt, stalled);
  console.log(`${label}: ${produced} events, duplicates ${duplicates} (${disruptions} disruptions, bound ${bound})`);
  for (const x of t) {
    expect(x.missing, `${x.sessionId} missing ${x.missingSample.join(',')}`).toBe(0);
    expect(x.gapRecords).toBe(0);
  }
  expect(
    duplicates,
    `${disruptions} disruptions: in flight, and (overflow) the acks not checkpointed`,
  ).toBeLessThanOrEqual(bound);
}

describe('replicas sharing a PostgreSQL store, through outages', () => {
  it('PostgreSQL restarted with -m immediate: reading pauses, then everything resumes by itself', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `pr${i + 1}`);
    const { h, cl } = await world.setup('restart', ids, 40);
    cl.start('r1');
    cl.start('r2');
    await streaming(cl, ids, 2);
    world.server.restart('immediate');
    const back = Date.now();
    const seqAt = new Map(ids.map((id) => [id, cl.maxSeq(id)]));
    await until(
      () => ids.every((id) => cl.maxSeq(id) > seqAt.get(id)! + 40),
      'every session to stream again after the restart',
      30_000,
    ).catch(async (err: Error) => {
      const o = await cl.owners().catch(() => new Map());
      throw new Error(
        `${err.message}: ${JSON.stringify(ids.map((id) => [id, o.get(id), seqAt.get(id), cl.maxSeq(id)]))}\n${[
          ...cl.replicas.values(),
        ]
          .map((r) =>
            r
              .output()
              .split('\n')
              .filter((l) => !/"msg":"(export|HTTP)/.test(l))
              .slice(-25)
              .join('\n'),
          )
          .join('\n----\n')}`,
      );
    });
    console.log(
      `PostgreSQL -m immediate restart: every session streaming again ${Date.now() - back} ms after the server was back`,
    );
    await endAndCount(h, cl, ids, 'PostgreSQL restart', 0);
    await cl.stopAll();
  });

  it('a replica cut off from the database stops reading; another takes its sessions; it rejoins when the link is back', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `cu${i + 1}`);
    // Overflow mode: the cut-off replica pauses delivery from memory once its checkpoints have
    // waited CHECKPOINT_STALL_MS, so its successor sends again at most that long of acknowledgements
    // besides what was in flight (duplicateBound). A lease of 10 s keeps the cut-off replica running
    // past that pause (its checkpoint write hangs until the query timeout, 5 s, then fails; it
    // seals and would deliver again until its lease is lost), and the pause is seen directly: from
    // the moment it says so until r2 owns its sessions, the receiver gets no more of them than its
    // requests in flight (measured: 0 with the pause, 436 with it taken out). (Its own /metrics cannot
    // tell: a scrape waits for the unreachable store's spool figures.)
    const perSession = 40;
    const { url, h, cl } = await world.setup('cut', ids, perSession, { env: { BRIDGE_STORE_LEASE: '10s' } });
    const { server } = world;
    const proxy = await startTcpProxy(server.port);
    world.closeAfter(proxy);
    cl.start('r1', {
      BRIDGE_STORE_URL: url.replace(`:${server.port}/`, `:${proxy.port}/`),
    });
    cl.start('r2');
    const owners = await streaming(cl, ids, 2);
    const cutOff = ids.filter((id) => owners.get(id) === 'r1');
    proxy.cut();
    const cutAt = Date.now();
    await until(
      () => /delivery from memory pauses/.test(cl.replicas.get('r1')!.output()),
      'the cut-off replica to pause delivery from memory',
      10_000,
    );
    const received = (): number => cutOff.reduce((n, id) => n + cl.count(id), 0);
    const atPause = received();
    // What the receiver holds of them while the database still names r1 their owner: r1's alone.
    let beforeTakeOver = atPause;
    for (;;) {
      const n = received();
      const o = await cl.owners();
      if (cutOff.every((id) => o.get(id) === 'r1')) beforeTakeOver = n;
      if (cutOff.every((id) => o.get(id) === 'r2')) break;
      if (Date.now() - cutAt > 25_000) throw new Error(`r2 did not take over: ${JSON.stringify([...o])}`);
      await sleep(200);
    }
    const tookMs = Date.now() - cutAt;
    await until(
      () => /lease not renewed within its safety margin/.test(cl.replicas.get('r1')!.output()),
      'the cut-off replica to stop reading',
      10_000,
    );
    // Its sessions stream from r2 now.
    const seqAt = new Map(cutOff.map((id) => [id, cl.maxSeq(id)]));
    await until(
      () => cutOff.every((id) => cl.maxSeq(id) > seqAt.get(id)! + 40),
      'the cut-off sessions to stream from r2',
      20_000,
    );
    console.log(`partition: r2 owned the ${cutOff.length} sessions of the cut-off replica ${tookMs} ms after the cut`);
    const afterPause = beforeTakeOver - atPause;
    console.log(`partition: the cut-off replica delivered ${afterPause} records from its pause to the take-over`);
    expect(afterPause).toBeLessThanOrEqual(IN_FLIGHT_PER_REPLICA);
    proxy.restore();
    // Back: r1 renews and gets its preferred sessions handed back.
    await until(
      () => /lease renewed again/.test(cl.replicas.get('r1')!.output()),
      'the replica to renew its lease again',
      20_000,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}\n${cl.replicas
          .get('r1')!
          .output()
          .split('\n')
          .filter((l) => !/"msg":"(export|HTTP)/.test(l))
          .slice(-30)
          .join('\n')}`,
      );
    });
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && !cutOff.some((id) => cl.replicas.get('r1') && owners.get(id) === 'r1'))
      await sleep(200);
    await sleep(2000);
    await endAndCount(h, cl, ids, 'partition', 0, false, { eventsPerSecond: cutOff.length * perSession });
    await cl.stopAll();
  });

  it('the collector is down while a replica fails over: the new owner delivers the moved spool once it is back', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `co${i + 1}`);
    // Overflow mode: a record waiting longer than memory_max_age spills, so the outage below
    // leaves a spool in the store that moves with the sessions; what the dead replica held only in
    // memory the new owner reads again from the service.
    const { h: hh, cl } = await world.setup('collector', ids, 40, { config: 'spool:\n  memory_max_age: 300ms\n' });
    cl.start('r1');
    cl.start('r2');
    const owners = await streaming(cl, ids, 2);
    hh.receiver.behaviour.status = 503;
    await sleep(1500);
    // r1 dies holding a spool it could not deliver.
    const victim = cl.replicas.get('r1')!;
    victim.kill('SIGKILL');
    await exited(victim);
    const moved = ids.filter((id) => owners.get(id) === 'r1');
    for (;;) {
      const o = await cl.owners();
      if (moved.every((id) => o.get(id) === 'r2')) break;
      await sleep(200);
    }
    await sleep(1500);
    // The dead replica's undelivered spool moved to r2 with the sessions.
    expect(cl.replicas.get('r2')!.output()).toMatch(/"backlogRecords":[1-9]/);
    delete hh.receiver.behaviour.status;
    await endAndCount(hh, cl, ids, 'collector down during failover', 1);
    await cl.stopAll();
  });

  it('sessions that fail over and end while the collector is down stay owned until their moved spool is delivered', async () => {
    const ids = Array.from({ length: 4 }, (_, i) => `en${i + 1}`);
    const { h: hh, cl } = await world.setup('ended', ids, 100);
    cl.start('r1');
    cl.start('r2');
    const owners = await streaming(cl, ids, 2);
    // More than the requests in flight can hold (2 × 100 records): the rest waits in the spool.
    hh.receiver.behaviour.status = 503;
    await sleep(1500);
    cl.replicas.get('r1')!.kill('SIGKILL');
    await exited(cl.replicas.get('r1')!);
    const moved = ids.filter((id) => owners.get(id) === 'r1');
    for (;;) {
      const o = await cl.owners();
      if (moved.every((id) => o.get(id) === 'r2')) break;
      await sleep(200);
    }
    await sleep(500);
    for (const id of ids) {
      hh.sim.session(id)!.produce(0);
      hh.sim.session(id)!.end();
    }
    // Several ownership passes see the sessions ended with their spool undelivered.
    await sleep(3000);
    delete hh.receiver.behaviour.status;
    await endAndCount(hh, cl, ids, 'failed over and ended while the collector was down', 1, true);
    await cl.stopAll();
  });
});
