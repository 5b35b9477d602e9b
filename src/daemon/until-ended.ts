// `run --until-ended`: when a run is over.
//
// Without discovery the sessions are known at start (configured, or added in earlier runs): the run
// is over once every followed session ended and everything read was delivered (all-ended.ts).
//
// With discovery the set is open: sessions enter the service's list over time, and a bridge started
// before them (a job that starts the bridge, then its browsers) must not take "nothing followed yet"
// for "everything ended", nor exit between two sessions of a series. So:
//   the list's first pass (discovery-loop.ts settled())
//   → a first session followed (any source), and every followed one over
//   → one more pass of the list, begun after that (and with the shared store one more ownership
//     pass, which counts what it added): a session created meanwhile is followed by then
//   → still over: done; a session came: wait again.
// A selector that never matches waits until stopped (said once, in the log). Sessions that ended
// before the bridge first read the list are not in it (its first pass reads live sessions only).
import type { DiscoveryLoop } from '../discovery/discovery-loop.js';
import type { AllEnded } from './all-ended.js';

export interface UntilEndedDeps {
  /** The supervisor's (Supervisor.allEnded). */
  run: Pick<AllEnded, 'wait' | 'isOver' | 'followedAny' | 'nextOwnershipPass'>;
  discovery?: Pick<DiscoveryLoop, 'settled' | 'nextPass'>;
  /** The list's first pass gave nothing to follow: said once. */
  waiting?: () => void;
}

/** Resolves once the run is over as above; never while a session may still come (with discovery). */
export async function untilEnded(d: UntilEndedDeps): Promise<void> {
  const { run, discovery } = d;
  if (!discovery) return run.wait();
  await discovery.settled();
  if (!run.followedAny) d.waiting?.();
  for (;;) {
    await run.wait({ firstSession: true });
    await discovery.nextPass();
    await run.nextOwnershipPass();
    if (run.isOver()) return;
  }
}
