// After each ownership pass a replica claims the finished sessions' owed spans nobody live sends
// (daemon/owed-span-claims.ts): one claim at a time, the rows it sends passed back as held so it
// does not claim them again while their spans are out, released when the send is done with them.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { OwedSpanClaims, type SendOwedSpans } from '../../../src/daemon/owed-span-claims.js';
import type { SessionRow } from '../../../src/store/store.js';

const log = pino({ level: 'silent' });
const row = (id: string): SessionRow => ({
  spec: { id, attributes: {} },
  source: 'api',
  lifecycle: 'removed',
  checkpoint: 1,
  epoch: 0,
  spans: '{}',
});

function world() {
  const claims: Array<{ holding: string[]; answer: (rows: SessionRow[] | Error) => void }> = [];
  const sent: string[] = [];
  const done = new Map<string, (id: string) => void>();
  const send: SendOwedSpans = (rows, d) => {
    for (const r of rows) {
      sent.push(r.spec.id);
      done.set(r.spec.id, d);
    }
  };
  const claimsOwed = new OwedSpanClaims({
    store: {
      claimOwedSpans: (holding) =>
        new Promise((resolve, reject) =>
          claims.push({
            holding: [...holding],
            answer: (r) => (r instanceof Error ? reject(r) : resolve(r)),
          }),
        ),
    },
    send,
    log,
  });
  const settle = () => new Promise((r) => setImmediate(r));
  return { claims, sent, done, owed: claimsOwed, settle };
}

describe('owed span claims', () => {
  it('claims once per pass, never two at once, and sends what it got', async () => {
    const w = world();
    w.owed.pass();
    w.owed.pass(); // a pass while the claim is out: skipped
    expect(w.claims).toHaveLength(1);
    w.claims[0]!.answer([row('a'), row('b')]);
    await w.settle();
    expect(w.sent).toEqual(['a', 'b']);
  });

  it('passes what it holds to the next claim, until the send is done with each', async () => {
    const w = world();
    w.owed.pass();
    w.claims[0]!.answer([row('a'), row('b')]);
    await w.settle();
    w.owed.pass();
    expect(w.claims[1]!.holding).toEqual(['a', 'b']);
    w.claims[1]!.answer([]);
    await w.settle();
    w.done.get('a')!('a');
    w.owed.pass();
    expect(w.claims[2]!.holding).toEqual(['b']);
  });

  it('tries again at the next pass after a failed claim', async () => {
    const w = world();
    w.owed.pass();
    w.claims[0]!.answer(new Error('connection lost'));
    await w.settle();
    w.owed.pass();
    expect(w.claims).toHaveLength(2);
  });

  it('holds a row whose spans cannot be sent, and sends the others', async () => {
    const sent: string[] = [];
    const claims: string[][] = [];
    let answer: SessionRow[] = [row('bad'), row('good')];
    const owed = new OwedSpanClaims({
      store: {
        claimOwedSpans: async (holding) => {
          claims.push([...holding]);
          const r = answer;
          answer = [];
          return r;
        },
      },
      send: (rows) => {
        for (const r of rows) {
          if (r.spec.id === 'bad') throw new Error('unreadable');
          sent.push(r.spec.id);
        }
      },
      log,
    });
    owed.pass();
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual(['good']);
    owed.pass();
    expect(claims[1]).toEqual(['bad', 'good']);
  });

  it('claims no more once stopped, and does not send what a claim under way returns', async () => {
    const w = world();
    w.owed.pass();
    const stopped = w.owed.stop();
    w.claims[0]!.answer([row('a')]);
    await stopped;
    w.owed.pass();
    expect(w.claims).toHaveLength(1);
    expect(w.sent).toEqual([]);
  });
});
