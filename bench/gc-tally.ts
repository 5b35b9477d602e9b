// The main thread's garbage collections during a measured phase, by kind: a count does not depend
// on how loaded the machine is, unlike the milliseconds beside it. The bridge runs in the
// scenario's process, so this is the bridge's main thread (not its ingest workers: each is an
// isolate of its own). V8 starts a full collection when the old generation plus the bytes
// allocated outside its heap since the last one (Buffers) pass a limit: copying records on the
// main thread shows as major collections here.
import { PerformanceObserver, constants } from 'node:perf_hooks';

export interface GcTally {
  /** Scavenges of the young generation. */
  minor: number;
  /** Full (mark-compact) collections. */
  major: number;
  /** Wall milliseconds of both, pauses only (incremental marking steps not counted). */
  ms: number;
}

/** Counts from now until stop(). */
export function startGcTally(): { stop(): GcTally } {
  const t: GcTally = { minor: 0, major: 0, ms: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) t.minor++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) t.major++;
      else continue;
      t.ms += e.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      observer.disconnect();
      return { ...t, ms: Math.round(t.ms) };
    },
  };
}
