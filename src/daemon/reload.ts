// Configuration reload (SIGHUP, or the configuration file changed; docs/design.md "The operator contract").
//
// One reload, in order:
//   1. Read the file and the environment again and validate them exactly as at start. A
//      configuration that fails is logged with the key at fault and ignored: the daemon keeps
//      running on the configuration it has.
//   2. Mapping options (filters, redaction, screenshots, …) changed → build the new mapper and swap
//      it in (SwappableMapper). A mapper that cannot be built counts as an invalid configuration;
//      nothing has been changed yet at that point.
//   3. Sessions: newly listed → followed; no longer listed and followed because of the
//      configuration → stopped (what they already read is still delivered); listed with other
//      attributes or pool → updated in place. Sessions added through the control API are left alone.
//      A session listed before and not followed now ended or was stopped through the API: it stays
//      so, the same rule the supervisor applies at start.
//   4. The default start position applies to sessions followed from now on.
//   5. Everything else (upstream, state dir, store, spool, listen, control settings, exporter,
//      traces, resource, workers, memory limit, discovery, shutdown grace) is built once at start:
//      a change is logged as requiring a restart.
// Nothing already read is dropped: the spool writer, the exporter and the sessions that stay are
// not touched, and a stopped session commits what it read before it is marked removed.
//
// Reloads run one at a time; triggers that arrive while one runs coalesce into one more reload.
import type { Logger } from 'pino';
import { ConfigError } from '../config/errors.js';
import { loadConfig } from '../config/load-config.js';
import type { BridgeConfig, SessionSpec } from '../config/schema.js';
import type { Emit } from '../vocabulary/facts.js';
import type { SessionSource } from '../store/store.js';
import type { SwappableMapper } from '../session/swappable-mapper.js';
import { isRecord } from '../util/guards.js';

/** What a reload did; also logged. */
export interface ReloadOutcome {
  status: 'applied' | 'unchanged' | 'rejected';
  /** Why a configuration was rejected: the key at fault and the message. */
  error?: { key: string; message: string };
  added: string[];
  removed: string[];
  updated: string[];
  mappingChanged: boolean;
  startChanged: boolean;
  /** File keys (e.g. `exporter.endpoint`) whose new values take effect only after a restart. */
  restartRequired: string[];
}

/** The parts of the running bridge a reload acts on. */
export interface ReloadTarget {
  /** The applied configuration; `sessions`, `start` and `mapping` are updated in place on success. */
  config: BridgeConfig;
  supervisor: {
    add(spec: SessionSpec, source: SessionSource): Promise<unknown>;
    remove(id: string): Promise<boolean>;
    followed(): Array<{ spec: SessionSpec; source: SessionSource }>;
  };
  mapper: SwappableMapper;
  /** Where a reload's outcome is reported (metric and log lines). */
  emit: Emit;
  log: Logger;
}

export interface Reloader {
  /** Re-reads and applies the configuration; never rejects (problems are in the outcome and the log). */
  reload(reason: string): Promise<ReloadOutcome>;
  /** Later triggers are ignored (the daemon is shutting down). */
  close(): void;
}

// What a reload applies; every other setting is read once while the bridge is built, and a change
// to it is reported as needing a restart. Named by exclusion so that a setting added later is
// reported too: a list of the restart-only ones missed traces, store, workers, memory_limit and
// BRIDGE_REPLICA_ID, whose changes a reload then ignored without a word.
const APPLIED: ReadonlySet<string> = new Set(['sessions', 'start', 'mapping', 'configPath']);

/** Changed settings only a restart applies, one level deep so the log names what changed (never values). */
function settingsNeedingRestart(current: BridgeConfig, next: BridgeConfig): string[] {
  const a = current as unknown as Record<string, unknown>;
  const b = next as unknown as Record<string, unknown>;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const changed = [...keys].filter((k) => !APPLIED.has(k)).flatMap((k) => changedKeys(a[k], b[k], k));
  // The traces' exporter follows the logs' one and traces.enabled, unless OTEL_EXPORTER_OTLP_TRACES_*
  // set its own: named on its own only when it changed alone.
  const derived = changed.some((k) => k.startsWith('exporter') || k === 'traces.enabled');
  return derived ? changed.filter((k) => k !== 'traces.exporter') : changed;
}

/** `load` defaults to reading the file the bridge started with (or BRIDGE_CONFIG) and process.env. */
export function createReloader(
  target: ReloadTarget,
  load: () => BridgeConfig = () => loadConfig(target.config.configPath),
): Reloader {
  let tail: Promise<unknown> = Promise.resolve();
  let queued: Promise<ReloadOutcome> | undefined;
  let closed = false;

  const once = async (reason: string): Promise<ReloadOutcome> => {
    const outcome = emptyOutcome();
    if (closed) return outcome;
    let next: BridgeConfig;
    try {
      next = load();
    } catch (err) {
      return reject(outcome, err instanceof ConfigError ? err.key : 'config', err, reason);
    }
    const current = target.config;
    if (!sameJson(current.mapping, next.mapping)) {
      try {
        target.mapper.swap(next.mapping);
      } catch (err) {
        return reject(outcome, 'mapping', err, reason);
      }
      outcome.mappingChanged = true;
    }
    await applySessions(current.sessions, next.sessions, outcome);
    outcome.startChanged = current.start !== next.start;
    outcome.restartRequired = settingsNeedingRestart(current, next).map(fileKey);
    current.sessions = next.sessions;
    current.start = next.start;
    current.mapping = next.mapping;

    const changed =
      outcome.added.length + outcome.removed.length + outcome.updated.length > 0 ||
      outcome.mappingChanged ||
      outcome.startChanged;
    outcome.status = changed ? 'applied' : 'unchanged';
    const { added, removed, updated, mappingChanged, startChanged, restartRequired } = outcome;
    target.emit({
      f: 'config_reloaded',
      reason,
      added,
      removed,
      updated,
      mappingChanged,
      startChanged,
      restartRequired,
    });
    return outcome;
  };

  const reject = (outcome: ReloadOutcome, key: string, err: unknown, reason: string): ReloadOutcome => {
    const message = err instanceof Error ? err.message : String(err);
    outcome.status = 'rejected';
    outcome.error = { key, message };
    target.emit({ f: 'config_rejected', reason, key, error: message });
    return outcome;
  };

  const applySessions = async (
    before: readonly SessionSpec[],
    after: readonly SessionSpec[],
    outcome: ReloadOutcome,
  ): Promise<void> => {
    const { supervisor, log } = target;
    const followed = new Map(supervisor.followed().map((f) => [f.spec.id, f]));
    const previous = new Map(before.map((s) => [s.id, s]));
    const listed = new Set(after.map((s) => s.id));
    const attempt = async (id: string, what: string, op: () => Promise<unknown>, into: string[]): Promise<void> => {
      try {
        await op();
        into.push(id);
      } catch (err) {
        log.error({ session: id, error: (err as Error).message }, `reload: cannot ${what} the session`);
      }
    };
    for (const spec of after) {
      const f = followed.get(spec.id);
      if (!f) {
        if (!previous.has(spec.id))
          await attempt(spec.id, 'follow', () => supervisor.add(spec, 'config'), outcome.added);
      } else if (!sameSpec(previous.get(spec.id) ?? f.spec, spec)) {
        // Keep the source: a session first added through the API stays the API's to remove.
        await attempt(spec.id, 'update', () => supervisor.add(spec, f.source), outcome.updated);
      }
    }
    for (const f of followed.values()) {
      if (f.source === 'config' && !listed.has(f.spec.id)) {
        await attempt(f.spec.id, 'stop following', () => supervisor.remove(f.spec.id), outcome.removed);
      }
    }
  };

  return {
    reload(reason) {
      // A reload still waiting to start will read the newest file anyway: join it.
      if (queued) return queued;
      const run = tail.then(() => {
        queued = undefined;
        return once(reason).catch((err: unknown) => {
          target.log.error({ reason, error: (err as Error).message }, 'configuration reload failed');
          return {
            ...emptyOutcome(),
            status: 'rejected' as const,
            error: { key: 'config', message: (err as Error).message },
          };
        });
      });
      queued = run;
      tail = run;
      return run;
    },
    close() {
      closed = true;
    },
  };
}

function emptyOutcome(): ReloadOutcome {
  return {
    status: 'unchanged',
    added: [],
    removed: [],
    updated: [],
    mappingChanged: false,
    startChanged: false,
    restartRequired: [],
  };
}

function sameSpec(a: SessionSpec, b: SessionSpec): boolean {
  return a.pool === b.pool && a.start === b.start && sameJson(a.attributes, b.attributes);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

// BridgeConfig paths whose file key (load-config.ts) is not just the snake_case of the path.
const FILE_KEYS: Readonly<Record<string, string>> = {
  stateDir: 'state.dir',
  shutdownGraceMs: 'shutdown.grace',
  'exporter.url': 'exporter.endpoint',
  'resource.serviceName': 'service.name',
  'resource.attributes': 'service.resource_attributes',
  memoryLimitBytes: 'memory_limit',
  replicaId: 'BRIDGE_REPLICA_ID',
  'traces.exporter': 'OTEL_EXPORTER_OTLP_TRACES_*',
};

/** The key an operator edits for a BridgeConfig path: `spool.maxBytes` → `spool.max_bytes`. */
function fileKey(path: string): string {
  return (
    FILE_KEYS[path] ??
    path
      .split('.')
      .map((p) => p.replace(/Ms$/, '').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
      .join('.')
  );
}

/** Keys under `key` whose values differ, one level deep (`exporter.url`, `exporter.headers`, `listen`). */
function changedKeys(a: unknown, b: unknown, key: string): string[] {
  if (sameJson(a, b)) return [];
  if (!isRecord(a) || !isRecord(b)) return [key];
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((k) => !sameJson(a[k], b[k])).map((k) => `${key}.${k}`);
}
