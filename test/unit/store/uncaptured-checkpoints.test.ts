// Traces on, the spool moves a session's checkpoint only to a position whose span state was
// captured (docs/design.md "Delivery semantics"): in `always` mode a commit whose last
// append of a session carries no state spools its records and leaves its checkpoint where it was;
// in `overflow` mode the ledger holds such positions and moves over them (ledger.test.ts,
// overflow.model.test.ts). Traces off (no source at all) nothing changes.
import { describe, expect, it } from 'vitest';
import type { SpanStateSource } from '../../../src/store/pending-segments.js';
import { Spool } from '../../../src/store/spool.js';
import { SqliteStore } from '../../../src/store/sqlite-store.js';

const captured =
  (state: string): SpanStateSource =>
  () =>
  () =>
    state;
const uncaptured: SpanStateSource = () => undefined;
const record = Buffer.from([0x0a, 0x00]);

async function alwaysSpool(): Promise<{ spool: Spool; row: () => Promise<{ checkpoint: number; spans?: string }> }> {
  const store = new SqliteStore(':memory:');
  await store.putSession({ id: 's', attributes: {} }, 'config');
  const spool = await Spool.open({
    store,
    mode: 'always',
    maxBytes: 1024 ** 3,
    memoryMaxBytes: 64 * 1024 * 1024,
    commitMaxRecords: 100_000,
    commitIntervalMs: 60_000,
  });
  return { spool, row: async () => (await store.sessions())[0]! };
}

describe('checkpoints and captured span states (always mode)', () => {
  it('a commit ending at an uncaptured position spools the records and keeps the checkpoint at the last captured one', async () => {
    const { spool, row } = await alwaysSpool();
    spool.append({ sessionId: 's', seq: 1, epoch: 0, tsMicros: 1, record, spans: captured('at 1') });
    await spool.flush();
    expect(await row()).toMatchObject({ checkpoint: 1, spans: 'at 1' });
    spool.append({ sessionId: 's', seq: 2, epoch: 0, tsMicros: 1, record, spans: captured('at 2') });
    spool.append({ sessionId: 's', seq: 3, epoch: 0, tsMicros: 1, record, spans: uncaptured });
    await spool.flush();
    expect(await row()).toMatchObject({ checkpoint: 1, spans: 'at 1' });
    expect(spool.onDisk.records).toBe(3);
    // A stop captures the last position: a checkpoint-only append there (session-records.ts).
    spool.append({ sessionId: 's', seq: 3, epoch: 0, tsMicros: 1, record: null, spans: captured('at 3') });
    await spool.flush();
    expect(await row()).toMatchObject({ checkpoint: 3, spans: 'at 3' });
    await spool.close();
  });

  it('traces off: every commit moves the checkpoint', async () => {
    const { spool, row } = await alwaysSpool();
    spool.append({ sessionId: 's', seq: 1, epoch: 0, tsMicros: 1, record });
    await spool.flush();
    expect((await row()).checkpoint).toBe(1);
    await spool.close();
  });
});
