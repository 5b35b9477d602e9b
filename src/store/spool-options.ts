// The spool's options and the limits its parts share.
import type { Store } from './store.js';
import type { FreeSpace } from './disk-room.js';
import type { SpoolMode } from '../config/schema.js';
import type { Emit } from '../vocabulary/facts.js';

/** Pending bytes that make a commit due (and readers wait for it): memory stays bounded with large records. */
export const COMMIT_MAX_BYTES = 8 * 1024 * 1024;

export interface SpoolOptions {
  store: Store;
  /** overflow (default): memory first, the store takes what the collector cannot; always: every record on disk first. */
  mode?: SpoolMode;
  maxBytes: number;
  /**
   * always: committed segments kept in memory for delivery; beyond it they are read back from the
   * store. overflow: the bytes records may hold in memory (waiting and in flight) before they spill.
   */
  memoryMaxBytes: number;
  /** overflow: a segment waiting longer than this spills (the collector falls behind). Default 10 s. */
  memoryMaxAgeMs?: number;
  /**
   * overflow: delivery from memory pauses while acknowledged checkpoint moves wait longer than
   * CHECKPOINT_STALL_MS for their write (a shared store, whose sessions a successor takes over from
   * the written checkpoint). Off by default: with the embedded store a full disk must not stop delivery.
   */
  pauseOnUnwrittenCheckpoints?: boolean;
  /**
   * overflow: moved checkpoints wait past their interval until this many bytes of records were
   * acknowledged since the last write, or CHECKPOINT_MAX_WAIT_MS passed (checkpoint-timing.ts). For the
   * embedded store, where every write costs a page whatever it carries. 0 (default): every interval.
   */
  checkpointMinBytes?: number;
  /** The clock for durations, epoch ms, never going back (util/steady-clock.ts); tests inject one. */
  now?: () => number;
  commitMaxRecords: number;
  commitIntervalMs: number;
  /** True while the process is over its memory budget: appenders wait as for a full spool. */
  memoryPressure?: () => boolean;
  /** Free and total bytes of the store's volume (see disk-room.ts). */
  freeBytes?: FreeSpace;
  /** Where the spool's facts go: failed and recovered commits, failed deletes, fenced writes. */
  emit?: Emit;
}
