// Replicas sharing a PostgreSQL store, as an operator and a bad day see them: PUT and DELETE on a
// replica that does not own the session; a replica frozen (SIGSTOP) beyond its lease and thawed
// (SIGCONT) — its writes are refused, checkpoints only move forward, nothing is missing.
import { describe, expect, it } from 'vitest';
import { sleep, until } from '../../helpers/harness.js';
import { duplicateBound, replicaWorld } from './replicas.js';

const world = replicaWorld();

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('replicas sharing a PostgreSQL store', () => {
  it('PUT and DELETE work on any replica: the owner picks the change up within seconds; GET /v1/sessions names the owner', async () => {
    const ids = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
    const { h: hh, cl } = await world.setup('control', ids, 20, {
      follow: [],
      env: { BRIDGE_LISTEN: '127.0.0.1:0', BRIDGE_SESSIONS: '' },
    });
    cl.start('r1');
    cl.start('r2');
    const u1 = await cl.httpUrl('r1');
    const u2 = await cl.httpUrl('r2');
    for (const id of ids) {
      const r = await json(`${u1}/v1/sessions/${id}`, {
        method: 'PUT',
        body: JSON.stringify({ attributes: { team: 'a' } }),
      });
      expect(r.status).toBe(201);
    }
    await until(() => ids.every((id) => cl.count(id) > 0), 'every session PUT on r1 to stream', 20_000);
    let owners = await cl.owners();
    await until(() => new Set(owners.values()).size === 2, 'both replicas to own sessions', 20_000).catch(
      () => undefined,
    );
    owners = await cl.owners();
    const onR2 = ids.find((id) => owners.get(id) === 'r2')!;
    expect(onR2, JSON.stringify([...owners])).toBeDefined();

    // GET on either replica names the owner of every session.
    const list = await json(`${u1}/v1/sessions`);
    expect(list.body.replica).toBe('r1');
    const listed = new Map((list.body.sessions as Array<{ id: string; owner: string }>).map((s) => [s.id, s.owner]));
    for (const id of ids) expect(listed.get(id)).toBe(owners.get(id));

    // PUT on r1 for a session r2 owns: r2 applies the new attributes without reconnecting.
    const updated = await json(`${u1}/v1/sessions/${onR2}`, {
      method: 'PUT',
      body: JSON.stringify({ attributes: { team: 'b' } }),
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: onR2, owner: 'r2' });
    await until(
      () =>
        hh.receiver.records.some((r) => r.attributes['browser.session.id'] === onR2 && r.attributes['team'] === 'b'),
      'the owner to apply the new attributes',
      10_000,
    );

    // DELETE on r1 for that session: r2 stops following it.
    expect((await json(`${u1}/v1/sessions/${onR2}`, { method: 'DELETE' })).status).toBe(204);
    // Measured, not timed: r2 no longer lists it as its own; then, while every other session keeps
    // streaming (each produces all along), it receives nothing more.
    const ownedByR2 = async (): Promise<boolean> =>
      ((await json(`${u2}/v1/sessions`)).body.sessions as Array<{ id: string; owner?: string; state: string }>).some(
        (s) => s.id === onR2 && s.owner === 'r2' && s.state !== 'stopped',
      );
    for (const end = Date.now() + 20_000; await ownedByR2();) {
      if (Date.now() > end) throw new Error(`r2 still follows ${onR2} after the DELETE`);
      await sleep(100);
    }
    const others = ids.filter((id) => id !== onR2);
    const othersReceived = (): number => others.reduce((n, id) => n + cl.count(id), 0);
    // What was in flight for it when it stopped has landed once the others moved on by a few seconds' worth.
    let mark = othersReceived();
    await until(() => othersReceived() >= mark + others.length * 40, 'the other sessions to stream on', 20_000);
    const before = cl.count(onR2);
    mark = othersReceived();
    await until(() => othersReceived() >= mark + others.length * 40, 'the other sessions to stream on', 20_000);
    expect(cl.count(onR2)).toBe(before);
    expect(await ownedByR2()).toBe(false);
    // r2 still lists it, stopped, as a single bridge lists what it stopped; r1 never read it.
    const onR2List = (await json(`${u2}/v1/sessions`)).body.sessions as Array<{ id: string; state: string }>;
    expect(onR2List.find((s) => s.id === onR2)).toMatchObject({ state: 'stopped', owner: 'r2' });
    const onR1List = (await json(`${u1}/v1/sessions`)).body.sessions as Array<{ id: string }>;
    expect(onR1List.find((s) => s.id === onR2)).toBeUndefined();
    // The owner says why it stopped: the DELETE was answered by another replica.
    expect(cl.replicas.get('r2')!.output()).toMatch(
      /stopped following sessions another replica removed or recorded as ended/,
    );
    expect((await json(`${u1}/v1/sessions/${onR2}`, { method: 'DELETE' })).status).toBe(404);
    await cl.stopAll();
  });

  it('a replica started with a list lacking a configured session removes it for every replica, and both sides say so', async () => {
    const ids = ['c1', 'c2'];
    const { cl } = await world.setup('unlisted', ids, 20);
    cl.start('r1');
    await until(() => ids.every((id) => cl.count(id) > 0), 'both configured sessions to stream', 20_000);
    // A second replica with an older (or mistyped) list: c2 is removed from the shared store.
    cl.start('r2', { BRIDGE_SESSIONS: 'c1' });
    await until(
      () =>
        /this configuration no longer lists sessions an earlier one did: removed for every replica/.test(
          cl.replicas.get('r2')!.output(),
        ),
      'the starting replica to warn',
      20_000,
    );
    expect(cl.replicas.get('r2')!.output()).toMatch(/"level":40[^\n]*"sample":\["c2"\]/);
    // Its owner, r1, stops reading it and says why: nothing stops silently.
    await until(
      () =>
        /stopped following sessions another replica removed or recorded as ended/.test(cl.replicas.get('r1')!.output()),
      'the owner to say it stopped following c2',
      20_000,
    );
    await cl.stopAll();
  });

  it('a replica frozen beyond its lease loses its sessions, cannot write when it thaws, and checkpoints only move forward', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `z${i + 1}`);
    const { h: hh, cl } = await world.setup('zombie', ids, 40);
    cl.start('r1');
    cl.start('r2');
    // Two replica processes start beside the rest of the suite: 20 s ran out once on a loaded machine.
    await until(() => ids.every((id) => cl.count(id) > 0), 'every session to stream', 40_000);
    let owners = await cl.owners();
    for (let i = 0; i < 50 && !(new Set(owners.values()).size === 2 && [...owners.values()].every(Boolean)); i++) {
      await sleep(200);
      owners = await cl.owners();
    }
    const frozen = ids.filter((id) => owners.get(id) === 'r1');
    expect(frozen.length).toBeGreaterThan(0);

    // Watch the checkpoints all along: they may only move forward in (epoch, seq) order.
    const regressions: string[] = [];
    const last = new Map<string, [number, number]>();
    let watching = true;
    let sweeps = 0;
    const watcher = (async () => {
      while (watching) {
        sweeps++;
        for (const [id, [e, cp]] of await cl.checkpoints()) {
          const prev = last.get(id);
          if (prev && (e < prev[0] || (e === prev[0] && cp < prev[1])))
            regressions.push(`${id}: ${prev.join('/')} → ${e}/${cp}`);
          last.set(id, [e, cp]);
        }
        await sleep(100);
      }
    })();

    const r1 = cl.replicas.get('r1')!;
    r1.kill('SIGSTOP');
    const stoppedAt = Date.now();
    // The lease is 3 s: r2 takes the frozen replica's sessions.
    for (;;) {
      owners = await cl.owners();
      if (frozen.every((id) => owners.get(id) === 'r2')) break;
      if (Date.now() - stoppedAt > 20_000) throw new Error(`r2 did not take over: ${JSON.stringify([...owners])}`);
      await sleep(200);
    }
    const tookMs = Date.now() - stoppedAt;
    // r2 moves the frozen sessions' checkpoints on before the zombie thaws, so a stale write of the
    // zombie would show as a regression.
    const atTakeover = new Map(frozen.map((id) => [id, last.get(id)?.[1] ?? 0]));
    await until(
      () => frozen.every((id) => (last.get(id)?.[1] ?? 0) > atTakeover.get(id)!),
      'r2 to move the taken sessions on',
      20_000,
    );
    r1.kill('SIGCONT');
    // The zombie notices (its lease deadline passed long ago) and stops reading what it held.
    await until(
      () => /lease not renewed within its safety margin|another replica owns them now/.test(r1.output()),
      'the thawed replica to give its sessions up',
      10_000,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}\n${r1
          .output()
          .split('\n')
          .filter((l) => !/"msg":"(export|HTTP)/.test(l))
          .slice(-20)
          .join('\n')}`,
      );
    });
    console.log(
      `SIGSTOP: r2 owned the ${frozen.length} frozen sessions after ${tookMs} ms; fenced writes seen by the zombie: ${/the shared store refused a write/.test(r1.output()) ? 'yes' : 'none in flight'}`,
    );
    // The checkpoint watcher keeps looking while whatever the zombie had in flight settles.
    const sweepsAtThaw = sweeps;
    await until(() => sweeps >= sweepsAtThaw + 30, 'the checkpoint watcher to look 30 more times', 30_000);

    for (const id of ids) {
      hh.sim.session(id)!.produce(0);
      hh.sim.session(id)!.end();
    }
    await until(() => hh.tally(ids).every((t) => t.missing === 0), 'every event delivered', 30_000).catch(
      async (err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify(hh.tally(ids).map((t) => [t.sessionId, t.missing, t.missingSample.slice(0, 5)]))} owners ${JSON.stringify([...(await cl.owners())])}\n${[
            ...cl.replicas.values(),
          ]
            .map((r) =>
              r
                .output()
                .split('\n')
                .filter((l) => !/"msg":"(export|HTTP)/.test(l))
                .slice(-20)
                .join('\n'),
            )
            .join('\n----\n')}`,
        );
      },
    );
    watching = false;
    await watcher;
    expect(regressions).toEqual([]);
    const t = hh.tally(ids);
    const produced = ids.reduce((n, id) => n + hh.sim.session(id)!.lastSeq, 0);
    const duplicates = t.reduce((n, x) => n + x.duplicates, 0);
    console.log(
      `SIGSTOP/SIGCONT: ${produced} events, duplicates ${duplicates} (${duplicateBound(cl, 1).disruptions} disruptions)`,
    );
    for (const x of t) expect(x.gapRecords).toBe(0);
    // At most what was in flight: the frozen replica's (its requests, answered or not, are sent
    // again by r2; thawed, it may finish a claim before it notices) and at each hand-over or loss.
    const { bound, disruptions } = duplicateBound(cl, 1);
    expect(
      duplicates,
      `${disruptions} disruptions: in flight, and (overflow) one checkpoint interval of acks, each`,
    ).toBeLessThanOrEqual(bound);
    await cl.stopAll();
  });
});
