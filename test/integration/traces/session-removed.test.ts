// A session removed for good (DELETE /v1/sessions/{id}, a reload without it, unlisted from the
// configuration while the bridge was down) is never read again: its open spans are closed, marked
// session_removed, and sent; those not acknowledged when the bridge stops stay in its stored span
// state and are sent by the next start, which then drops the state (docs/traces.md "After a crash,
// a stop or a removal").
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../../../src/devkit/receiver/server.js';
import type { Bridge } from '../../../src/daemon/bridge.js';
import type { SessionRow } from '../../../src/store/store.js';
import { decodeSpanState } from '../../../src/traces/span-state.js';
import { FAST, exited, harness, sleep, spawnDaemon, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
let noTraces: Receiver | undefined;
afterEach(async () => {
  await h?.close();
  await noTraces?.close();
});

const endReason = (s: { attributes: Record<string, unknown> }): unknown => s.attributes['browser.span.end_reason'];

/** The session's stored row once its removal is recorded (it is, once its records are safe). */
async function removedRow(bridge: Bridge, id: string): Promise<SessionRow | undefined> {
  let row;
  for (let i = 0; i < 500 && row?.lifecycle !== 'removed'; i++) {
    row = (await bridge.store.sessions()).find((r) => r.spec.id === id);
    if (row?.lifecycle !== 'removed') await sleep(20);
  }
  return row;
}

async function stateDropped(bridge: Bridge, id: string): Promise<boolean> {
  for (let i = 0; i < 500; i++) {
    if ((await bridge.store.sessions()).find((r) => r.spec.id === id)?.spans === undefined) return true;
    await sleep(20);
  }
  return false;
}

describe('a session removed with open spans', () => {
  for (const workers of [0, 1])
    it(`flushes them marked session_removed, and drops its stored state once they are acknowledged (${workers ? 'in a worker' : 'main thread'})`, async () => {
      h = await harness();
      const session = h.sim.createSession('rm1');
      session.emit(300);
      const bridge = await h.startBridge(FAST, {
        BRIDGE_SESSIONS: 'rm1',
        BRIDGE_TRACES: 'true',
        BRIDGE_WORKERS: String(workers),
      });
      expect(bridge.ingest?.size ?? 0).toBe(workers);
      const receiver = h.receiver;
      await until(() => receiver.records.length >= 300, 'the session read');
      expect(await bridge.supervisor.remove('rm1')).toBe(true);
      await until(() => receiver.spans.some((s) => endReason(s) === 'session_removed'), 'the open spans flushed');
      // Removed, not ended: nothing is marked as a session end (spans finished before the removal may
      // still arrive after it, with their own ends).
      expect(receiver.spans.filter((s) => endReason(s) === 'session_end')).toEqual([]);
      const row = await removedRow(bridge, 'rm1');
      expect(row).toMatchObject({ lifecycle: 'removed' });
      // Nothing of it is continued: a session PUT again starts with no open span. The state, written
      // with the closing spans not yet acknowledged, is dropped once they are: no later start sends
      // them again.
      const state = decodeSpanState(row?.spans);
      expect([state?.open.docs ?? [], state?.open.requests ?? []]).toEqual([[], []]);
      expect(await stateDropped(bridge, 'rm1')).toBe(true);
      await bridge.shutdown();
      const sent = receiver.spans.length;
      const second = await h.startBridge(FAST, { BRIDGE_SESSIONS: '', BRIDGE_TRACES: 'true' });
      await sleep(300);
      await second.shutdown();
      expect(receiver.spans.length).toBe(sent);
    });

  for (const workers of [0, 1])
    it(`sends the closing spans not acknowledged before the stop at the next start, then forgets them (${workers ? 'in a worker' : 'main thread'})`, async () => {
      h = await harness();
      noTraces = await startReceiver({ traces: false });
      const session = h.sim.createSession('rm2');
      session.emit(300);
      const tracesTo = (url: string) => ({
        BRIDGE_SESSIONS: 'rm2',
        BRIDGE_TRACES: 'true',
        BRIDGE_WORKERS: String(workers),
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces`,
      });
      // The API's session, so that the configuration does not list it again at the next start.
      const first = await h.startBridge(FAST, { ...tracesTo(noTraces.url), BRIDGE_SESSIONS: '' });
      await first.supervisor.add({ id: 'rm2', attributes: {} });
      await until(() => h!.receiver.records.length >= 300, 'the session read');
      expect(await first.supervisor.remove('rm2')).toBe(true);
      expect(await removedRow(first, 'rm2')).toMatchObject({ lifecycle: 'removed' });
      await first.shutdown();
      expect(h.receiver.spans).toEqual([]);

      const second = await h.startBridge(FAST, { ...tracesTo(h.receiver.url), BRIDGE_SESSIONS: '' });
      await until(
        () => h!.receiver.spans.some((s) => endReason(s) === 'session_removed'),
        'the closing spans sent by the next start',
      );
      expect(second.supervisor.status().map((s) => s.id)).toEqual([]);
      expect(await stateDropped(second, 'rm2')).toBe(true);
      const sent = h.receiver.spans.length;
      await second.shutdown();
      const third = await h.startBridge(FAST, { ...tracesTo(h.receiver.url), BRIDGE_SESSIONS: '' });
      await third.shutdown();
      expect(h.receiver.spans.length).toBe(sent);
    });
});

describe('a session removed while it waits for room (max_sessions)', () => {
  it('has the spans its stored state left open closed at once, marked session_removed', async () => {
    h = await harness();
    h.sim.createSession('wait-a');
    h.sim.createSession('wait-b').emit(300);
    const env = { BRIDGE_SESSIONS: 'wait-a,wait-b', BRIDGE_TRACES: 'true' };
    const first = await h.startBridge(FAST, env);
    await until(() => h!.receiver.records.length >= 300, 'wait-b read');
    await first.shutdown();
    const stored = decodeSpanState(storedState(h.stateDir, 'wait-b'));
    const open = (stored?.open.docs.length ?? 0) + (stored?.open.requests.length ?? 0);
    expect(open).toBeGreaterThan(0);

    // One place: wait-a (recorded first) is followed, wait-b waits with its stored state.
    const second = await h.startBridge(FAST, { ...env, BRIDGE_MAX_SESSIONS: '1' });
    expect(second.supervisor.waitingForRoom()).toEqual(['wait-b']);
    expect(await second.supervisor.remove('wait-b')).toBe(true);
    await until(
      () => h!.receiver.spans.filter((s) => endReason(s) === 'session_removed').length >= open,
      'the open spans closed',
    );
    expect(h.receiver.spans.filter((s) => endReason(s) === 'session_removed')).toHaveLength(open);
    expect(await stateDropped(second, 'wait-b')).toBe(true);
    await second.shutdown();
  });
});

describe('a session unlisted from the configuration while the daemon was down', () => {
  it('has the spans it left open closed by the next daemon, marked session_removed, and its state dropped', async () => {
    h = await harness();
    h.sim.createSession('cfg-rm').emit(300);
    h.sim.createSession('cfg-other');
    const env = (sessions: string) => h!.env({ BRIDGE_SESSIONS: sessions, BRIDGE_CONFIG: '', BRIDGE_TRACES: 'true' });
    const first = spawnDaemon(env('cfg-rm'));
    await until(() => h!.receiver.records.length >= 300, 'the session read');
    first.kill('SIGTERM');
    expect(await exited(first), first.output()).toBe(0);
    const before = new Set(h.receiver.spans.map((s) => s.spanId));
    expect(h.receiver.spans.filter((s) => endReason(s) !== undefined)).toEqual([]);
    const stored = decodeSpanState(storedState(h.stateDir, 'cfg-rm'));
    const open = (stored?.open.docs.length ?? 0) + (stored?.open.requests.length ?? 0);
    expect(open).toBeGreaterThan(0);

    const second = spawnDaemon({ ...env('cfg-other'), LOG_LEVEL: 'info' });
    await until(
      () => h!.receiver.spans.filter((s) => endReason(s) === 'session_removed').length >= open,
      'the open spans closed',
    );
    const closed = h.receiver.spans.filter((s) => endReason(s) === 'session_removed');
    // Exactly the spans that were open: none sent before, none marked as a session end.
    expect(closed).toHaveLength(open);
    expect(closed.filter((s) => before.has(s.spanId))).toEqual([]);
    expect(h.receiver.spans.filter((s) => endReason(s) === 'session_end')).toEqual([]);
    for (let i = 0; i < 250 && storedState(h.stateDir, 'cfg-rm') !== undefined; i++) await sleep(20);
    second.kill('SIGTERM');
    expect(await exited(second), second.output()).toBe(0);
    expect(storedState(h.stateDir, 'cfg-rm')).toBeUndefined();
    // The start says what it stopped following, and why.
    expect(second.output()).toMatch(
      /"sample":\["cfg-rm"\].*this configuration no longer lists sessions an earlier one did: not followed any more/,
    );
  });
});

/** The session's stored span state in the daemon's SQLite file (undefined: none). */
function storedState(stateDir: string, id: string): string | undefined {
  const file = join(stateDir, 'bridge.db');
  if (!existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT state AS s FROM span_states WHERE session_id = ?').get(id) as
      { s: Buffer | string } | undefined;
    if (row === undefined) return undefined;
    // Stored compressed (store/sqlite-span-states.ts).
    return typeof row.s === 'string' ? row.s : inflateRawSync(row.s).toString('utf8');
  } finally {
    db.close();
  }
}
