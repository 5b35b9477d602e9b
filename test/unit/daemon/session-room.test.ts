// max_sessions as a room, with a fake set of followed sessions: recorded sessions are followed while
// there is room and wait otherwise (one fact per session, grouped by source), PUTs in flight count
// against the room, and freed room goes to the oldest waiting session first.
import { describe, expect, it } from 'vitest';
import { SessionLimitError, SessionRoom } from '../../../src/daemon/session-room.js';
import type { SessionRow } from '../../../src/store/store.js';
import type { Fact } from '../../../src/vocabulary/facts.js';
import type { SessionSource } from '../../../src/vocabulary/session-states.js';

const row = (id: string, source: SessionSource = 'discovery'): SessionRow => ({
  spec: { id, start: 'oldest', attributes: {} },
  source,
  lifecycle: 'active',
  checkpoint: 0,
  epoch: 0,
});

function room(limit: number) {
  const followed = new Set<string>();
  const facts: Fact[] = [];
  const r = new SessionRoom({
    limit,
    followed: () => followed.size,
    isFollowed: (id) => followed.has(id),
    emit: (f) => facts.push(f),
  });
  const follow = (x: SessionRow): void => {
    followed.add(x.spec.id);
  };
  return { r, followed, facts, follow };
}

describe('SessionRoom', () => {
  it.each([
    { limit: 3, offered: ['a', 'b'], following: ['a', 'b'], waiting: [] },
    { limit: 2, offered: ['a', 'b', 'c', 'd'], following: ['a', 'b'], waiting: ['c', 'd'] },
    { limit: 0, offered: ['a'], following: [], waiting: ['a'] },
  ])('limit $limit, offered $offered → following $following, waiting $waiting', (c) => {
    const w = room(c.limit);
    w.r.admit(
      c.offered.map((id) => row(id)),
      w.follow,
    );
    expect([...w.followed]).toEqual(c.following);
    expect(w.r.ids()).toEqual(c.waiting);
  });

  it('says once which sessions wait, by source, not each time they are offered again', () => {
    const w = room(1);
    w.r.admit([row('k1', 'config'), row('k2', 'config'), row('d1')], w.follow);
    w.r.admit([row('k2', 'config'), row('d1'), row('d2')], w.follow);
    expect(w.facts).toEqual([
      { f: 'session_refused', sessions: ['k2'], source: 'config', followed: 1, limit: 1 },
      { f: 'session_refused', sessions: ['d1'], source: 'discovery', followed: 1, limit: 1 },
      { f: 'session_refused', sessions: ['d2'], source: 'discovery', followed: 1, limit: 1 },
    ]);
  });

  it('a PUT in flight holds its place: a second one at the same moment is refused', async () => {
    const w = room(1);
    let release!: () => void;
    const first = w.r.reserve(
      () =>
        new Promise<void>((r) => {
          release = () => {
            w.followed.add('p1');
            r();
          };
        }),
    );
    await expect(w.r.reserve(async () => undefined)).rejects.toBeInstanceOf(SessionLimitError);
    release();
    await first;
    expect(w.r.occupied).toBe(1);
  });

  it('freed room goes to the oldest waiting session first, one per free place', () => {
    const w = room(1);
    w.r.admit([row('a'), row('b'), row('c')], w.follow);
    expect(w.r.next()).toBeUndefined();
    w.followed.delete('a');
    expect(w.r.next()?.spec.id).toBe('b');
    w.followed.add('b');
    expect(w.r.next()).toBeUndefined();
    expect(w.r.forget('c')?.spec.id).toBe('c');
    expect(w.r.forget('c')).toBeUndefined();
    expect(w.r.ids()).toEqual([]);
  });
});
