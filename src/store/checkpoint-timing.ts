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
 * they delivered at one write a second.
 *
 * The bytes are counted over all sessions, so a busy bridge passes them well within a second and
 * writes once a second; they set the pace only for a quiet flow, above all a sidecar's single
 * session (5 events/s, about 6–7 KB/s). With 256 KiB and a minute such a sidecar wrote a commit
 * every 40 s: 0.043 of what it delivered over five minutes and 0.056 over ten, above the 0.05 the
 * embedded store is held to. 512 KiB and two minutes space its commits about 80 s apart (half as
 * many). What a crash re-sends stays bounded by bytes: 512 KiB or a second of acknowledgements,
 * whichever is more. A flow under 512 KiB in two minutes re-sends at most two minutes of its events
 * after a crash: at most a few thousand events of ~200 bytes and more, within the service's ring
 * buffer (8,192 events), so the resume position stays replayable without the archive.
 */
export const CHECKPOINT_MAX_WAIT_MS = 120_000;
/** The embedded store's `checkpointMinBytes`: about 20 KiB dirtied per 512 KiB delivered is 0.04 at most. */
export const CHECKPOINT_MIN_BYTES = 512 * 1024;

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
