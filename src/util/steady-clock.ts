// Milliseconds since the epoch, as Date.now() gives them, except that the answer never goes back.
// The spool measures durations with it (the checkpoint write interval, a memory segment's age, how
// long an acknowledgement has waited for its write): with Date.now() itself, a wall clock stepped
// back (NTP, a restored VM) made every such duration negative until the clock had caught up, so no
// checkpoint was written for that long and a kill -9 then re-read all of it. A step forward passes
// through (durations read long: things fall due early, which costs a write, never a guarantee).
//
// Built on Date.now() rather than performance.now() so that a test's fake clock drives it too.

let last = Number.NEGATIVE_INFINITY;
/** What the steps back so far add to Date.now(). */
let behind = 0;

export function steadyNow(): number {
  const t = Date.now() + behind;
  if (t < last) {
    behind += last - t;
    return last;
  }
  last = t;
  return t;
}
