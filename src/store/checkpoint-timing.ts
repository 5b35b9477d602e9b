// When overflow mode writes the checkpoints acknowledgements moved, and how long a shared store's
// replica may deliver from memory while those writes fail or hang: the timing overflow-writer.ts
// follows, with the measurements that chose it.

/** Overflow mode: moved checkpoints are written at most this often (or at each commit, if that is rarer). */
export const CHECKPOINT_INTERVAL_MS = 1000;

/**
 * With `checkpointMinBytes` (the embedded store): the longest moved checkpoints wait for that many
 * bytes to be acknowledged. SQLite writes a page for each write however little moved: in WAL mode a
 * commit dirties about five 4 KiB pages of the file system, the WAL frame (4,120 bytes, across two)
 * and three of the WAL index in `-shm` (its header, the frame's page number, its hash slot). A page
 * dirtied again before the kernel wrote it back (within about 30 s) costs nothing more, so what a
 * flow writes is about those five pages per commit when commits are further apart than that, and
 * per 30 s when they are closer. A session or two at a few dozen KiB a second wrote a tenth of what
 * they delivered at one write a second. Waiting for 256 KiB (CHECKPOINT_MIN_BYTES) brings that
 * under 0.05 down to a session of about 7 KiB a second, and what a crash re-sends stays 256 KiB or
 * a second of acknowledgements, whichever is more. A thousand sessions pass the bytes well within
 * a second. The wait ends after this long anyway, so a stored checkpoint is never far behind: a
 * flow under 256 KiB a minute re-sends at most a minute of events after a crash, a small part of
 * the service's ring buffer (8,192 events), so the resume position is still replayable without the
 * archive. A sidecar's single session (5 events/s, about 7 KB/s) wrote 0.039–0.043 of what it
 * delivered over five minutes, with 512 KiB as with 256 KiB (the minute, not the bytes, then sets
 * the pace); at 20 events/s over a minute, 0.017–0.022 with 512 KiB and 0.023–0.026 with 256 KiB.
 * Too little to double what a crash re-sends. At 30 s a sidecar's session wrote 0.045–0.066 of
 * what it delivered in a 60 s run.
 */
export const CHECKPOINT_MAX_WAIT_MS = 60_000;
/** The embedded store's `checkpointMinBytes`: about 20 KiB dirtied per 256 KiB delivered is 0.08 at most, 0.02–0.04 measured. */
export const CHECKPOINT_MIN_BYTES = 256 * 1024;

/**
 * Shared store: delivery from memory pauses once an acknowledged checkpoint move has waited this
 * long for its write. Two intervals: a healthy write comes within one interval and a commit, so
 * only a write that fails or hangs pauses delivery. At most this long of acknowledgements (plus the
 * requests in flight) is ever delivered and not checkpointed. With the default commit interval;
 * a longer `spool.commit_interval` spaces the writes further, and the stall with them
 * (checkpointStallMs).
 */
export const CHECKPOINT_STALL_MS = 2 * CHECKPOINT_INTERVAL_MS;

/** The stall for a commit interval: two of the intervals checkpoints are actually written at. */
export function checkpointStallMs(commitIntervalMs: number): number {
  return 2 * Math.max(commitIntervalMs, CHECKPOINT_INTERVAL_MS);
}
