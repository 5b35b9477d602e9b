// Bloat control of the shared spool: drained generations are truncated, live ones never.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEN_SHIFT } from '../../../src/store/pg-schema.js';
import { spoolDiskBytes, truncateDrainedGenerations } from '../../../src/store/pg-spool-rotation.js';
import { openPgStore, type PgStore } from '../../../src/store/pg-store.js';
import type { NewSegment } from '../../../src/wire/segment-framing.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

let server: PgServer;
let n = 0;
beforeAll(async () => {
  server = await startPostgres();
});
afterAll(() => server?.close());

async function store(): Promise<PgStore> {
  const s = await openPgStore({ url: await server.createDatabase(`rot_${++n}`), replicaId: 'r' });
  await s.putSession({ id: 's', attributes: {} }, 'config');
  await s.claim(['s']);
  return s;
}

const payload = Buffer.concat([Buffer.from([0x12, 0x80, 0x20]), randomBytes(4096)]);
const segs = (count: number, from: number): NewSegment[] =>
  Array.from({ length: count }, (_, i) => ({
    sessionId: 's',
    payload,
    records: 1,
    firstSeq: from + i,
    lastSeq: from + i,
    oldestTsMicros: 1,
  }));

/** Moves the id sequence to the start of generation `g`, as steady traffic would. */
async function jumpTo(s: PgStore, g: number): Promise<void> {
  await s.db.query("SELECT setval('bridge_segment_id', $1)", [Math.max(1, g * 2 ** GEN_SHIFT)]);
}

describe('shared spool rotation', () => {
  it('gives the space of drained generations back at once (measured: bytes on disk after steady insert + delete)', async () => {
    const s = await store();
    let seq = 1;
    for (let g = 0; g < 4; g++) {
      await jumpTo(s, g);
      const ids = await s.commit(segs(300, seq), []);
      seq += 300;
      await s.deleteSegments(ids);
    }
    const bloated = await spoolDiskBytes(s.db);
    const truncated = await truncateDrainedGenerations(s.db);
    const after = await spoolDiskBytes(s.db);
    console.log(
      `spool on disk after 1200 segments of 4 KiB inserted and deleted: ${bloated} bytes; after truncating drained generations ${truncated.join(',')}: ${after} bytes`,
    );
    // Generation 3 is being written (and 4 comes next): left alone. 0, 1 and 2 are drained.
    expect(truncated.sort()).toEqual([0, 1, 2]);
    expect(after).toBeLessThan(bloated / 3);
    await s.close();
  });

  it('never truncates a generation that still holds an undelivered segment', async () => {
    const s = await store();
    await jumpTo(s, 1);
    const [keep] = await s.commit(segs(1, 1), []);
    const drop = await s.commit(segs(50, 2), []);
    await s.deleteSegments(drop);
    await jumpTo(s, 4);
    await s.commit(segs(1, 60), []);
    expect(await truncateDrainedGenerations(s.db)).not.toContain(1);
    expect((await s.readSegments(0, keep!, 10)).map((x) => x.id)).toEqual([keep]);
    await s.close();
  });
});
