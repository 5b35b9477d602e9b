// The ingest workers (worker.ts): threads that each follow a share of the sessions, so reading,
// parsing, mapping and encoding use the machine's other cores while this thread keeps the spool,
// the store and delivery.
//
// Placement: a new session goes to the worker with the fewest. Batches from a worker are appended
// to the spool in the order they were posted and acknowledged once the spool has room again (the
// worker's back-pressure, outbox.ts). A worker that dies (an exception nobody caught) is replaced
// after a second, and its sessions are handed to the watcher's `lost`: the supervisor commits what reached the
// spool and follows them again from their checkpoints, so what the dead worker had read and not
// posted is read again, not lost.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/schema.js';
import type { MappingOptions } from '../config/mapping-section.js';
import type { Emit } from '../vocabulary/facts.js';
import type { Spool } from '../store/spool.js';
import type { SessionRow } from '../store/store.js';
import type { SessionStatus } from '../session/session-status.js';
import { unpackBatch } from './outbox.js';
import type { FromWorker, ToWorker, WorkerInit } from './protocol.js';
import { RemoteSession } from './remote-session.js';
import { SpanMirror } from './span-mirror.js';
import { UNCAPTURED } from '../store/pending-segments.js';
import type { SpanSink } from '../session/span-tap.js';
import { once } from '../util/lifecycle.js';

/** Bytes a worker may have posted and not yet had taken by the spool. */
const IN_FLIGHT_BYTES = 4 * 1024 * 1024;
const REPORT_EVERY_MS = 250;
const RESPAWN_DELAY_MS = 1000;
// The worker's young generation (V8: two semi-spaces and the new large-object space, a third each;
// a semi-space is a power of two). Left to V8 on Node 24, a worker reading 1,000 heavy sessions
// grew it to 128 MiB of RSS while 25 MiB of it was live: the semi-spaces grow to their maximum
// whenever a scavenge finds much alive, and the records, frames and screenshot strings of a read
// are alive at the scavenge that finds them. 24 MiB gives semi-spaces of 8 MiB (a new space of 16
// MiB of RSS, against 32 at 48 MiB): what a read leaves alive is still far smaller, and the heavy
// mix's peak RSS is set while the new space is full size (docs/benchmarks.md). A process-wide
// `--max-semi-space-size` (NODE_OPTIONS) overrides this limit, in the workers too.
const WORKER_YOUNG_GENERATION_MB = 24;
// The worker's old generation: the limit is a ceiling no reading comes near (the worker holds ~20
// MiB alive for 1,000 heavy sessions), set for what it does below it. V8 lets a heap grow before a
// full collection by a factor up to 4 when its ceiling is 2 GiB or more (V8's default here), up to
// 1.3-2.0 below that (the factor's cap rises with the ceiling). Left to V8, the worker's old space
// filled with promoted garbage from 20 to 66 MiB over the heavy mix's 60 s before its first full
// collection, the part of the peak RSS that grew with the run's length; at 1,024 MiB (cap 1.6) it
// collects at about 1.6 times what is alive, a few more full collections a minute, each a few
// milliseconds. A worker that reaches the ceiling exits and is restarted as after any failure.
// A process-wide `--max-old-space-size` overrides this limit too.
const WORKER_OLD_GENERATION_MB = 1024;
/** The heap limits an ingest worker starts with (bench/memory-old-space.ts measures them). */
export const WORKER_RESOURCE_LIMITS = {
  maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
  maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB,
} as const satisfies ResourceLimits;

export interface IngestWorkersOptions {
  workers: number;
  config: BridgeConfig;
  log: Logger;
  /** Whether the workers' logs are pretty-printed (as this thread's are). */
  logPretty: boolean;
  spool: Pick<Spool, 'append' | 'full' | 'waitForRoom'>;
  /** Where the workers' facts go, as this thread's own do. */
  emit: Emit;
  /** Where the spans of the workers' sessions go (traces on): the span export. */
  spans?: SpanSink;
}

/** Who takes over what the workers cannot settle themselves (the supervisor). */
export interface IngestWatcher {
  /** A session's stream ended (404 or 410): the worker waits for this before it forgets the session. */
  ended(sessionId: string): Promise<void>;
  /** A worker died: these sessions are no longer read and must be followed again. */
  lost(sessionIds: string[]): void;
}

/**
 * `auto`: one worker per core beyond the first (this thread needs one for the spool and delivery),
 * at most four; none on a single core, where a worker would only add the cost of messages.
 */
export function resolveWorkers(configured: number | 'auto', cores = availableParallelism()): number {
  return configured === 'auto' ? Math.max(0, Math.min(4, cores - 1)) : configured;
}

/**
 * The worker's entry: compiled JavaScript next to this file (dist/), or from source when this file
 * runs as TypeScript (tests, `npm run demo`). tsx's `--import` hook does not reach worker threads,
 * so a source worker first registers tsx itself.
 */
function workerEntry(): { entry: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) return { entry: new URL('./worker.js', import.meta.url), eval: false };
  const api = createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs');
  const source = new URL('./worker.ts', import.meta.url).href;
  return {
    entry: `import(${JSON.stringify(pathToFileURL(api).href)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`,
    eval: true,
  };
}

/**
 * What a worker's log lines carry besides what its own logger sets: this thread's bindings without
 * `name`, which the worker's logger sets itself (twice, the line would have the key twice, which
 * strict JSON readers refuse), and the worker's index.
 */
export function workerLogBindings(log: Logger, index: number): Record<string, unknown> {
  const { name: _name, ...rest } = log.bindings();
  return { ...rest, worker: index };
}

class Slot {
  readonly sessions = new Map<number, RemoteSession>();
  /** The spans of its sessions, on this thread (traces on). */
  readonly mirrors = new Map<number, SpanMirror>();
  readonly stops = new Map<number, (s: SessionStatus | undefined) => void>();
  alive = true;
  constructor(readonly worker: Worker) {}

  post(msg: ToWorker): void {
    if (this.alive) this.worker.postMessage(msg);
  }
}

export class IngestWorkers {
  private readonly slots: Slot[] = [];
  private nextHandle = 1;
  private nextReq = 1;
  private closing = false;
  private watcher: IngestWatcher | undefined;
  /** The mapping options of the last reload: a worker started later (scaled up, or replacing a dead one) starts with them. */
  private mapping: MappingOptions | undefined;

  private constructor(private readonly o: IngestWorkersOptions) {}

  /**
   * Starts `o.workers` workers, or none yet when `lazy` (scaleUp() starts them when they are worth
   * their cost); rejects when one cannot start (a missing build, say).
   */
  static async open(o: IngestWorkersOptions, lazy = false): Promise<IngestWorkers> {
    const group = new IngestWorkers(o);
    if (!lazy) await group.scaleUp();
    return group;
  }

  /** Starts every worker, once; a worker that cannot start closes the others and rejects. */
  readonly scaleUp = once(async (): Promise<void> => {
    try {
      for (let i = 0; i < this.o.workers; i++) this.slots.push(await this.spawn(i));
    } catch (err) {
      await this.close();
      throw err;
    }
  });

  /** Sessions followed on the workers. */
  get sessions(): number {
    return this.slots.reduce((n, s) => n + s.sessions.size, 0);
  }

  /** Whether a session can be followed on a worker now. */
  get ready(): boolean {
    return this.slots.some((s) => s.alive);
  }

  /** Sets who is told of ended and lost sessions (one watcher: an end is waited for). */
  watch(w: IngestWatcher): void {
    this.watcher = w;
  }

  get size(): number {
    return this.slots.length;
  }

  private spawn(index: number): Promise<Slot> {
    const { entry, eval: evaluate } = workerEntry();
    const init: WorkerInit = {
      config: this.mapping === undefined ? this.o.config : { ...this.o.config, mapping: this.mapping },
      log: { level: this.o.log.level, pretty: this.o.logPretty, bindings: workerLogBindings(this.o.log, index) },
      inFlightBytes: IN_FLIGHT_BYTES,
      reportEveryMs: REPORT_EVERY_MS,
    };
    const worker = new Worker(entry, {
      workerData: init,
      name: `ingest-${index}`,
      eval: evaluate,
      resourceLimits: { ...WORKER_RESOURCE_LIMITS },
    });
    const slot = new Slot(worker);
    return new Promise((resolve, reject) => {
      // Ready once its modules loaded and it listens: a worker that cannot load fails the start.
      const failed = (err: Error): void => reject(new Error(`cannot start an ingest worker: ${err.message}`));
      const gone = (code: number): void =>
        reject(new Error(`cannot start an ingest worker: it exited with code ${code}`));
      worker.once('error', failed);
      worker.once('exit', gone);
      worker.on('message', (m: FromWorker) => {
        if (m.t !== 'ready') return this.received(slot, m);
        worker.off('error', failed);
        worker.off('exit', gone);
        worker.on('error', (err) =>
          this.o.log.error({ worker: index, error: err.stack ?? err.message }, 'an ingest worker failed'),
        );
        worker.once('exit', (code) => this.exited(slot, index, code));
        resolve(slot);
      });
    });
  }

  private exited(slot: Slot, index: number, code: number): void {
    slot.alive = false;
    for (const resolve of slot.stops.values()) resolve(undefined);
    slot.stops.clear();
    if (this.closing) return;
    const lost = [...slot.sessions.values()].map((s) => s.id);
    slot.sessions.clear();
    this.o.log.error(
      { worker: index, code, sessions: lost.length },
      'an ingest worker stopped; it is replaced and its sessions are followed again from their checkpoints',
    );
    this.respawn(slot, index, lost);
  }

  private respawn(dead: Slot, index: number, lost: string[]): void {
    setTimeout(() => {
      if (this.closing) return;
      this.spawn(index).then(
        (fresh) => {
          if (this.closing) {
            void fresh.worker.terminate();
            return;
          }
          this.slots[this.slots.indexOf(dead)] = fresh;
          this.watcher?.lost(lost);
        },
        (err: Error) => {
          this.o.log.error({ worker: index, error: err.message }, 'cannot replace an ingest worker; trying again');
          this.respawn(dead, index, lost);
        },
      );
    }, RESPAWN_DELAY_MS).unref();
  }

  /** A session to follow, on the worker with the fewest; the supervisor starts it. */
  follow(row: SessionRow): RemoteSession {
    const slot = this.slots
      .filter((s) => s.alive)
      .reduce<Slot | undefined>((a, b) => (a === undefined || b.sessions.size < a.sessions.size ? b : a), undefined);
    if (!slot) throw new Error('no ingest worker is running');
    const h = this.nextHandle++;
    // Kept here too: the slot forgets it once the session stops, and its closing spans are waited for after that.
    const mirror = this.o.spans ? new SpanMirror(this.o.spans, row.spans) : undefined;
    const session = new RemoteSession(h, row, {
      spansSettled: () => mirror?.settled() ?? Promise.resolve(),
      post: (msg) => slot.post(msg),
      stop: (handle, removed) =>
        new Promise((resolve) => {
          if (!slot.alive) return resolve(undefined);
          const req = this.nextReq++;
          slot.stops.set(req, (s) => {
            slot.sessions.delete(handle);
            slot.mirrors.delete(handle);
            resolve(s);
          });
          slot.post({ t: 'stop', h: handle, req, removed });
        }),
    });
    slot.sessions.set(h, session);
    if (mirror) slot.mirrors.set(h, mirror);
    return session;
  }

  /** A configuration reload changed the mapping options (already validated on this thread). */
  setMapping(options: MappingOptions): void {
    this.mapping = options;
    for (const s of this.slots) s.post({ t: 'mapping', options });
  }

  private received(slot: Slot, m: FromWorker): void {
    switch (m.t) {
      case 'batch': {
        const { spool } = this.o;
        let strays = 0;
        // Spans of a session no longer followed are dropped with it: its next reader builds them again.
        // The sessions whose state the worker captured after their last append in this batch: the
        // others' appends end at a position with no state, where their checkpoint may not move.
        const captured = new Set<number>();
        for (const sp of m.spans ?? []) {
          slot.mirrors.get(sp.h)?.received(sp.open, sp.finished);
          if (sp.open !== undefined) captured.add(sp.h);
        }
        unpackBatch(m.meta, m.bytes, m.sourceIds, (h, a) => {
          const s = slot.sessions.get(h);
          if (!s) {
            strays++;
            return;
          }
          a.sessionId = s.id;
          s.appended(a.epoch, a.seq);
          const mirror = slot.mirrors.get(h);
          a.spans = mirror && (captured.has(h) ? mirror.source : UNCAPTURED);
          spool.append(a);
        });
        // A worker posts a session's last records before it answers a stop: this is a bug, not a
        // loss (the checkpoint did not move, so the records are read again when it is followed).
        if (strays > 0)
          this.o.log.error(
            { records: strays },
            'an ingest worker sent records of a session it no longer follows; they were not spooled',
          );
        const ack = (): void => slot.post({ t: 'ack', bytes: m.size });
        if (spool.full) void spool.waitForRoom().then(ack);
        else ack();
        break;
      }
      case 'report':
        for (const [h, status] of m.statuses) slot.sessions.get(h)?.reported(status);
        for (const f of m.facts) this.o.emit(f);
        break;
      case 'stopped': {
        const r = slot.stops.get(m.req);
        slot.stops.delete(m.req);
        r?.(m.status);
        break;
      }
      case 'ready':
        break;
      case 'ended': {
        const s = slot.sessions.get(m.h);
        const done = s && this.watcher ? this.watcher.ended(s.id) : Promise.resolve();
        void done
          .catch((err: unknown) =>
            this.o.log.error({ session: s?.id, error: (err as Error).message }, 'cannot record the end of a session'),
          )
          .then(() => {
            slot.sessions.delete(m.h);
            slot.mirrors.delete(m.h);
            slot.post({ t: 'reply', req: m.req });
          });
        break;
      }
    }
  }

  /** Ends every worker; the supervisor has stopped their sessions first. Idempotent. */
  readonly close = once(async (): Promise<void> => {
    this.closing = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  });
}
