// Sessions appearing over time, as agent workloads create them: every `everyMs` a new session
// `<prefix><n>` is created with the given tags, produces at `rate`, and (with `lifetimeMs`) ends after
// that long. What `simulate --create-every` and the demo use to show discovery at work.
//
// Lifecycle: start() → a timer creates sessions until `max` were made or stop(); stop() clears the
// timers (sessions already made keep living). Idempotent.
import type { SimSession, SimSessionOptions } from './types.js';

export interface SpawnerOptions {
  everyMs: number;
  tags?: Record<string, string>;
  /** Events per second each created session produces (0: none). */
  rate?: number;
  /** Created sessions end after this long; absent: they live until the simulator closes. */
  lifetimeMs?: number;
  /** Stop creating after this many. */
  max?: number;
  prefix?: string;
  pool?: string;
  categories?: SimSessionOptions['categories'];
}

export interface SpawnerTarget {
  createSession(id: string, opts?: SimSessionOptions): SimSession;
}

export class SessionSpawner {
  private timer: NodeJS.Timeout | undefined;
  private readonly endings = new Set<NodeJS.Timeout>();
  readonly created: string[] = [];

  constructor(
    private readonly sim: SpawnerTarget,
    private readonly o: SpawnerOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.spawn(), this.o.everyMs);
  }

  private spawn(): void {
    if (this.o.max !== undefined && this.created.length >= this.o.max) {
      // Done creating; the sessions already made still end after their lifetime.
      clearInterval(this.timer);
      return;
    }
    const id = `${this.o.prefix ?? 'auto-'}${this.created.length + 1}-${Date.now().toString(36)}`;
    const s = this.sim.createSession(id, {
      ...(this.o.tags ? { tags: this.o.tags } : {}),
      ...(this.o.pool !== undefined ? { pool: this.o.pool } : {}),
      ...(this.o.categories !== undefined ? { categories: this.o.categories } : {}),
    });
    this.created.push(id);
    if (this.o.rate) s.produce(this.o.rate);
    if (this.o.lifetimeMs !== undefined) {
      const t = setTimeout(() => {
        this.endings.delete(t);
        s.end();
      }, this.o.lifetimeMs);
      this.endings.add(t);
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    for (const t of this.endings) clearTimeout(t);
    this.endings.clear();
  }
}
