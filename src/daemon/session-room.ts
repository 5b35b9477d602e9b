// max_sessions as a room the supervisor's sessions share, wherever they come from.
//
// A session asks in one of two ways:
//   a PUT (the control API) → room: counted from the check on (`reserve`), so PUTs of different
//     sessions at the same moment cannot all pass it while each awaits the store; no room:
//     SessionLimitError, which the control API answers with 429.
//   recorded already (the configuration, discovery, a cluster claim) → `admit`: followed while
//     there is room, otherwise waiting, in arrival order; a fact (warning, counter) the first time
//     a session waits, not every time it is offered again.
// Room freed (a session ended or was removed) → `next` gives the waiting sessions, oldest first.
// With the shared store ownership offers its sessions again at every pass, which admits them.
import type { SessionRow } from '../store/store.js';
import type { SessionSource } from '../vocabulary/session-states.js';
import type { Emit } from '../vocabulary/facts.js';

/** A new session refused because max_sessions are followed (the control API answers 429). */
export class SessionLimitError extends Error {
  constructor(
    readonly followed: number,
    readonly limit: number,
  ) {
    super(
      `the bridge follows ${followed} sessions, its limit (max_sessions = ${limit}); DELETE one or raise the limit`,
    );
  }
}

/** Which sessions get the room first at start: the configuration's, then PUT ones, then discovered ones. */
export const START_ORDER: { [K in SessionSource]: number } = { config: 0, api: 1, discovery: 2 };

export interface SessionRoomOptions {
  /** max_sessions. */
  limit: number;
  /** Sessions followed now. */
  followed: () => number;
  isFollowed: (id: string) => boolean;
  emit: Emit;
}

export class SessionRoom {
  /** Recorded as active, not followed for lack of room; arrival order. */
  private readonly waiting = new Map<string, SessionRow>();
  /** New sessions between the check and their following. */
  private reserved = 0;

  constructor(private readonly o: SessionRoomOptions) {}

  get occupied(): number {
    return this.o.followed() + this.reserved;
  }

  hasRoom(): boolean {
    return this.occupied < this.o.limit;
  }

  /** Runs `add` (which stores and follows one new session) counted against the room, or refuses it. */
  async reserve<T>(add: () => Promise<T>): Promise<T> {
    if (!this.hasRoom()) throw new SessionLimitError(this.occupied, this.o.limit);
    this.reserved++;
    try {
      return await add();
    } finally {
      this.reserved--;
    }
  }

  /** Follows each recorded row while there is room (`follow` must count at once); the rest wait. */
  admit(rows: readonly SessionRow[], follow: (row: SessionRow) => void): void {
    const over: SessionRow[] = [];
    for (const row of rows) {
      const id = row.spec.id;
      if (this.o.isFollowed(id)) continue;
      if (this.hasRoom()) {
        this.waiting.delete(id);
        follow(row);
      } else if (this.waiting.has(id)) {
        this.waiting.set(id, row);
      } else {
        this.waiting.set(id, row);
        over.push(row);
      }
    }
    for (const source of Object.keys(START_ORDER) as SessionSource[]) {
      const ids = over.filter((r) => r.source === source).map((r) => r.spec.id);
      if (ids.length > 0)
        this.o.emit({ f: 'session_refused', sessions: ids, source, followed: this.o.followed(), limit: this.o.limit });
    }
  }

  /** The oldest waiting session, taken out, while there is room. */
  next(): SessionRow | undefined {
    if (!this.hasRoom()) return undefined;
    const first = this.waiting.entries().next();
    if (first.done === true) return undefined;
    this.waiting.delete(first.value[0]);
    return first.value[1];
  }

  isWaiting(id: string): boolean {
    return this.waiting.has(id);
  }

  /** A waiting session's spec changed (a PUT of it, a reload). */
  update(row: SessionRow): void {
    if (this.waiting.has(row.spec.id)) this.waiting.set(row.spec.id, row);
  }

  /** No longer waits (removed, ended, given up by ownership); its row when it did. */
  forget(id: string): SessionRow | undefined {
    const row = this.waiting.get(id);
    this.waiting.delete(id);
    return row;
  }

  ids(): string[] {
    return [...this.waiting.keys()];
  }

  get size(): number {
    return this.waiting.size;
  }
}
