// Short sessions against a running bridge (issue: discovery misses short sessions). A burst of
// sessions that are created and deleted between two polls is in neither poll's live list; each must
// still be followed within two intervals, read from the archive since it has ended, every event
// delivered. Real sockets, the simulator's clock; the interval and lifetimes are the reproduction's.
import { afterEach, describe, expect, it } from 'vitest';
import type { Bridge } from '../../../src/daemon/bridge.js';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const okPolls = (b: Bridge): number => b.metrics.discoveryPolls.get({ outcome: 'ok' }) ?? 0;

describe('discovery of short sessions', () => {
  it(
    '133 matching sessions, 130 created at once and each ended within an interval: every one is followed and delivered',
    { timeout: 120_000 },
    async () => {
      h = await harness();
      const EVENTS = 20;
      const longLived = ['long-1', 'long-2', 'long-3'];
      for (const id of longLived) h.sim.createSession(id, { tags: { team: 'a' } }).emit(EVENTS);
      const b = await h.startBridge(FAST, {
        BRIDGE_DISCOVER: 'true',
        BRIDGE_DISCOVER_TAGS: 'team=a',
        BRIDGE_DISCOVER_INTERVAL: '2s',
      });
      await until(() => longLived.every((id) => b.supervisor.session(id) !== undefined), 'the long-lived sessions');

      // Right after a poll, so that the burst lives and ends before the next one reads the list.
      const before = okPolls(b);
      await until(() => okPolls(b) > before, 'a poll', 5000);
      const short = Array.from({ length: 130 }, (_, i) => `short-${String(i).padStart(3, '0')}`);
      for (const id of short) h.sim.createSession(id, { tags: { team: 'a' } }).emit(EVENTS);
      await new Promise((r) => setTimeout(r, 1500));
      for (const id of short) h.sim.session(id)!.end();

      const all = [...longLived, ...short];
      // Followed: each has a status in the bridge (ended by now). Generous bounds: on a loaded machine
      // the polls themselves run late; what is asserted is that none is left out, not how fast.
      await until(() => all.every((id) => b.supervisor.session(id) !== undefined), 'every session followed', 30_000);
      await until(() => h!.tally(all).every((t) => t.missing === 0), 'every event delivered', 50_000);
      const tally = h.tally(all);
      expect(tally.filter((t) => t.unique === 0).map((t) => t.sessionId)).toEqual([]);
      expect(tally.reduce((n, t) => n + t.unique, 0)).toBe(all.length * EVENTS);
      expect(tally.reduce((n, t) => n + t.gapRecords, 0)).toBe(0);
      // Found live or, for those the lists only showed deleted, from the archive: each exactly once.
      const found = (status: string): number => b.metrics.discoveredSessions.get({ status }) ?? 0;
      expect(found('active') + found('deleted')).toBe(133);
    },
  );
});
