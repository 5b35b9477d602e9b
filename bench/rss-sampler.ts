// Resident memory of this process (the bridge runs in it): the current figure on demand, and the
// peaks from the kernel's own high-water mark (VmHWM in /proc/self/status), which sees every page
// the process ever had resident, not one sample every so often.
//
// Why not a timer sampling RSS: it ran inside the bridge's process, so its CPU (about 1.4 µs an
// event of the heavy mix, in the timers and the /proc reads) was counted in the bridge's CPU per
// event, and a peak between two samples was missed. The window's peak (startWindow) resets the
// mark by writing 5 to /proc/self/clear_refs (Linux 4.0+); where that is refused the window falls
// back to sampling every 100 ms, as before.
import { readFileSync, writeFileSync } from 'node:fs';

const FALLBACK_SAMPLE_MS = 100;

export class RssSampler {
  /** The peak before the mark was last reset (the mark then covers only what follows). */
  private before = 0;
  /** The window's peak when the mark cannot be reset: sampled. */
  private sampled: { peak: number; timer: NodeJS.Timeout } | undefined;

  /** Highest RSS since this process started, bytes. */
  get peak(): number {
    return Math.max(this.before, highWaterMark(), this.sampled?.peak ?? 0);
  }

  /** Highest RSS since the last startWindow(), bytes (the peak of one phase of a scenario). */
  get windowPeak(): number {
    return this.sampled ? this.sampled.peak : highWaterMark();
  }

  /** RSS now, bytes. */
  sample(): number {
    const rss = process.memoryUsage.rss();
    if (this.sampled && rss > this.sampled.peak) this.sampled.peak = rss;
    return rss;
  }

  startWindow(): void {
    this.before = this.peak;
    if (this.sampled) {
      this.sampled.peak = 0;
      this.sample();
      return;
    }
    try {
      writeFileSync('/proc/self/clear_refs', '5');
    } catch {
      this.sampled = { peak: 0, timer: setInterval(() => this.sample(), FALLBACK_SAMPLE_MS) };
      this.sample();
    }
  }

  stop(): void {
    if (this.sampled) clearInterval(this.sampled.timer);
  }
}

/** VmHWM of this process, bytes (0 where /proc is not there). */
function highWaterMark(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export const mib = (bytes: number): number => Math.round(bytes / 1048576);
