// Rows of sessions that ended or were removed long ago are pruned when the store opens, so PUT churn
// cannot grow the sessions table (and the start-up read of it) without bound. Rows of active
// sessions, of recently finished ones, and of finished ones whose records still wait in the spool stay.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqliteStore, PRUNE_FINISHED_AFTER_MS } from '../../../src/store/sqlite-store.js';

const DAY = 24 * 3600 * 1000;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-prune-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('deletes long-finished rows at open, keeps active, recent and still-spooled ones', async () => {
  const t0 = 1_800_000_000_000;
  let now = t0;
  const clock = { now: () => now };
  const a = await openSqliteStore(dir, clock);
  for (const id of ['active', 'ended-old', 'removed-old', 'ended-recent', 'ended-spooled', 'revived'])
    await a.putSession({ id, attributes: {} }, 'api');
  await a.setLifecycle('ended-old', 'ended');
  await a.setLifecycle('removed-old', 'removed');
  await a.setLifecycle('ended-spooled', 'ended');
  await a.setLifecycle('revived', 'removed');
  await a.commit(
    [{ sessionId: 'ended-spooled', payload: Buffer.from('x'), records: 1, firstSeq: 1, lastSeq: 1, oldestTsMicros: 1 }],
    [],
  );
  now = t0 + 6 * DAY;
  await a.setLifecycle('ended-recent', 'ended');
  await a.putSession({ id: 'revived', attributes: {} }, 'api'); // followed again: no longer finished
  expect(a.pruned).toBe(0);
  await a.close();

  now = t0 + 8 * DAY;
  const b = await openSqliteStore(dir, clock);
  try {
    expect(b.pruned).toBe(2);
    expect((await b.sessions()).map((s) => s.spec.id).sort()).toEqual([
      'active',
      'ended-recent',
      'ended-spooled',
      'revived',
    ]);
  } finally {
    await b.close();
  }
  expect(PRUNE_FINISHED_AFTER_MS).toBe(7 * DAY);
});

it('an open store prunes when asked, as time passes, without a restart', async () => {
  const t0 = 1_800_000_000_000;
  let now = t0;
  const a = await openSqliteStore(dir, { now: () => now });
  try {
    for (const id of ['active', 'ended', 'ended-spooled']) await a.putSession({ id, attributes: {} }, 'api');
    await a.setLifecycle('ended', 'ended');
    await a.setLifecycle('ended-spooled', 'ended');
    await a.commit(
      [
        {
          sessionId: 'ended-spooled',
          payload: Buffer.from('x'),
          records: 1,
          firstSeq: 1,
          lastSeq: 1,
          oldestTsMicros: 1,
        },
      ],
      [],
    );
    now = t0 + 6 * DAY;
    expect(await a.pruneFinished()).toBe(0);
    now = t0 + 8 * DAY;
    expect(await a.pruneFinished()).toBe(1);
    expect((await a.sessions()).map((s) => s.spec.id).sort()).toEqual(['active', 'ended-spooled']);
    expect(await a.pruneFinished()).toBe(0);
  } finally {
    await a.close();
  }
});
