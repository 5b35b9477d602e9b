// A state directory written by the previous version (schema 1: one JSON row per record) is
// upgraded on the first start of this one, and its undelivered spool reaches the collector.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAST, harness, until, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => h?.close());

describe('upgrade from schema 1', () => {
  it("delivers the previous version's spool, every record once, and keeps the checkpoints", async () => {
    h = await harness();
    const stateDir = join(h.stateDir, 'v1');
    mkdirSync(stateDir);
    copyFileSync(resolve(import.meta.dirname, '../../fixtures/state-v1/bridge.db'), join(stateDir, 'bridge.db'));
    // The sessions go on in the service after seq 150: the bridge resumes there.
    for (const id of ['v1-a', 'v1-b']) {
      const s = h.sim.createSession(id);
      s.emit(160);
    }
    const bridge = await h.startBridge(FAST, { BRIDGE_STATE_DIR: stateDir, BRIDGE_SESSIONS: 'v1-a,v1-b' });
    await until(() => h!.receiver.records.length >= 320, '300 spooled + 20 new records');
    const uids = h.receiver.records.map((r) => String(r.attributes['log.record.uid']));
    expect(new Set(uids).size).toBe(uids.length);
    for (const id of ['v1-a', 'v1-b']) {
      const seqs = h.receiver.records
        .filter((r) => r.attributes['browser.session.id'] === id)
        .map((r) => Number(r.attributes['browser.telemetry.seq']))
        .sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 160 }, (_, i) => i + 1));
    }
    // The collector has them all; the spool empties once the bridge has read the answers.
    await until(() => bridge.spool.spooled.records === 0, 'the spool emptied');
  });
});
