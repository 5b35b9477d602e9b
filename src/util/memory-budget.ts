// A memory budget the bridge keeps to, rather than hopes for. The budget is BRIDGE_MEMORY_LIMIT
// (file key `memory_limit`), or else the container's limit read from the cgroup (v2 memory.max,
// v1 memory.limit_in_bytes); with neither there is no budget. While the resident set is above
// HIGH of the budget the spool counts as full, so the sessions stop reading (the service buffers,
// as for a full spool) until it is back under LOW: reading more is what grows memory, and the
// heap shrinks once in-flight work is delivered and collected.
//
// RSS is sampled, and shows a burst of large records (screenshots of up to ~1 MB) only after it
// happened. So the bytes that records held in memory take (what waits for a commit, what waits for
// delivery, what is being sent: countHeld()) are counted as they are taken, and reading pauses as
// well while they exceed HELD_SHARE of the budget, whatever RSS says yet.
import { readFileSync } from 'node:fs';

const HIGH = 0.85;
const LOW = 0.75;
/** Share of the budget that records held by the pipeline may take; the rest is heaps, code and sockets. */
export const HELD_SHARE = 0.5;

/** The container's memory limit in bytes, or undefined when there is none (or it cannot be read). */
export function containerMemoryLimit(
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): number | undefined {
  for (const path of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    let text: string;
    try {
      text = read(path).trim();
    } catch {
      continue;
    }
    if (text === 'max') return undefined;
    const n = Number(text);
    // cgroup v1 reports "no limit" as a huge number (PAGE_COUNTER_MAX × page size).
    if (Number.isSafeInteger(n) && n > 0 && n < 2 ** 60) return n;
    return undefined;
  }
  return undefined;
}

export interface MemoryGuard {
  readonly budgetBytes: number;
  /**
   * True while the resident set is above the high mark (and until it falls below the low one), or
   * while the held bytes exceed HELD_SHARE of the budget (read at once: no sampling delay).
   */
  readonly over: boolean;
  /** Bytes that records held in memory take now, by every counted source. */
  readonly heldBytes: number;
  /** Adds a source of held bytes (records pending a commit, waiting for delivery, in flight). */
  countHeld(source: () => number): void;
  /** Calls `watcher` each time `over` changes. */
  watch(watcher: (over: boolean) => void): void;
  stop(): void;
}

export function startMemoryGuard(
  budgetBytes: number,
  opts: { intervalMs?: number; rss?: () => number } = {},
): MemoryGuard {
  const rss = opts.rss ?? (() => process.memoryUsage.rss());
  const watchers: Array<(over: boolean) => void> = [];
  const held: Array<() => number> = [];
  const heldNow = (): number => {
    let n = 0;
    for (const h of held) n += h();
    return n;
  };
  let over = false;
  const check = (): void => {
    const now = rss();
    const next = over ? now > budgetBytes * LOW : now > budgetBytes * HIGH;
    if (next !== over) {
      over = next;
      for (const w of watchers) w(over);
    }
  };
  const timer = setInterval(check, opts.intervalMs ?? 250);
  timer.unref();
  return {
    budgetBytes,
    get over() {
      return over || (held.length > 0 && heldNow() > budgetBytes * HELD_SHARE);
    },
    get heldBytes() {
      return heldNow();
    },
    countHeld: (source) => void held.push(source),
    watch: (w) => void watchers.push(w),
    stop: () => clearInterval(timer),
  };
}
