// How the delivery tests that restart, pause or cut a daemon finish: once it has caught up, the
// sessions stop producing, every event must arrive, the sessions end, and the daemon (run with
// `--until-ended`) must exit 0 with nothing missing and no gap record.
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { exited, until, type Harness } from './harness.js';

export interface RunToEnd {
  /** Production stops once every session is within this many events of its last seq. */
  lag: number;
  /** What the catching up is called in a timeout's message. */
  what: string;
  timeoutMs: number;
}

export async function runToTheEnd(
  h: Harness,
  daemon: ChildProcess & { output(): string },
  ids: readonly string[],
  o: RunToEnd,
): Promise<void> {
  const lastSeq = (id: string): number => h.sim.session(id)!.lastSeq;
  await until(() => ids.every((id) => h.received(id) >= lastSeq(id) - o.lag), o.what, o.timeoutMs);
  for (const id of ids) h.sim.session(id)!.produce(0);
  await until(() => ids.every((id) => h.received(id) >= lastSeq(id)), 'every event', o.timeoutMs);
  for (const id of ids) h.sim.session(id)!.end();
  // `--until-ended` exits once every session's end is recorded: seconds, even on a loaded machine.
  const exit = exited(daemon);
  const late = await Promise.race([
    exit.then(() => false),
    new Promise<boolean>((r) => setTimeout(() => r(true), 30_000).unref()),
  ]);
  expect(late, `the daemon did not exit within 30 s of the sessions' ends:\n${daemon.output().slice(-4000)}`).toBe(
    false,
  );
  expect(await exit, daemon.output()).toBe(0);
  for (const t of h.tally([...ids])) {
    expect(t.missing, `missing seqs of ${t.sessionId}: ${t.missingSample.join(',')}`).toBe(0);
    expect(t.gapRecords).toBe(0);
  }
}
