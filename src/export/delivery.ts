// Moves records from the spool to the collector: pending → in flight → acknowledged (deleted).
//
// `concurrency` workers each claim the next batch of spooled records (id order; a shared cursor so
// no record is claimed twice), export it and delete it only after the collector answered success
// (DESIGN.md "Delivery semantics" 1). A failed batch stays with its worker and is retried with
// jittered backoff, forever: 5xx, timeouts, refused connections and 401/403 (a wrong header is a
// configuration problem the operator fixes while the spool holds the data). A batch the collector
// refuses as invalid (400) or too large (413) is split in halves until the culprit stands alone; a
// single refused record is dropped, logged and counted as rejected, so one bad record cannot block
// delivery forever. After a crash, records that were in flight are sent again: duplicates are
// bounded by concurrency × batch size and carry log.record.uid for deduplication.
import type { Logger } from 'pino';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { BridgeLogRecord } from '../mapping/log-record.js';
import type { BridgeMetrics } from '../server/metrics.js';
import type { SpooledRecord, Store } from '../store/store.js';
import { backoffDelay, type BackoffPolicy } from '../stream/backoff.js';
import type { LogExporter } from './otlp-exporter.js';
import { toReadable } from './to-readable.js';

export interface DeliveryOptions {
  store: Store;
  exporter: LogExporter;
  resource: Resource;
  batchMaxRecords: number;
  concurrency: number;
  backoff: BackoffPolicy;
  metrics: BridgeMetrics;
  log: Logger;
  /** Called for every acknowledged record (per-session delivered seq) and after each ack. */
  onDelivered(records: readonly SpooledRecord[]): void;
  /** Called after a batch is finished (delivered or rejected) and no longer counted in flight. */
  onSettled?(): void;
}

type Outcome = { ok: true } | { ok: false; status?: number; message: string };

export class Delivery {
  private cursor = 0;
  private stopped = false;
  private workers: Promise<void>[] = [];
  private sleepers = new Set<() => void>();
  private inFlight = 0;
  private failing = false;
  /** Last export failure, for status and readiness. */
  lastError: string | undefined;
  /** Records acknowledged by the collector since start (gap records included). */
  deliveredTotal = 0;

  constructor(private readonly o: DeliveryOptions) {}

  start(): void {
    for (let i = 0; i < this.o.concurrency; i++) this.workers.push(this.work());
  }

  /** New records were committed: wake idle workers. */
  wake(): void {
    for (const s of this.sleepers) s();
    this.sleepers.clear();
  }

  /** True when nothing is spooled and nothing in flight. */
  get idle(): boolean {
    return this.inFlight === 0 && this.o.store.spoolStats().records === 0;
  }

  get exportFailing(): boolean {
    return this.failing;
  }

  /** Delivers until the spool is empty or the deadline passes; returns whether it emptied. */
  async drain(deadline: number): Promise<boolean> {
    while (!this.idle && Date.now() < deadline && !this.stopped) {
      await new Promise((r) => setTimeout(r, 25));
    }
    return this.idle;
  }

  /**
   * Idempotent. Requests in flight are abandoned (their records stay spooled for the next start);
   * waits for the workers at most until `deadline`, so a collector that never answers cannot hold
   * shutdown past its grace period.
   */
  async stop(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    this.stopped = true;
    this.wake();
    const wait = deadline - Date.now();
    if (!Number.isFinite(wait)) {
      await Promise.all(this.workers);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.workers), new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, wait))))]);
    clearTimeout(timer);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(t);
        this.sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      let rows: SpooledRecord[];
      try {
        rows = this.o.store.readBatch(this.cursor, this.o.batchMaxRecords);
      } catch (err) {
        this.o.log.error({ error: (err as Error).message }, 'cannot read the spool; retrying');
        await this.sleep(this.o.backoff.maxMs);
        continue;
      }
      if (rows.length === 0) {
        await this.sleep(1000);
        continue;
      }
      this.cursor = rows[rows.length - 1]!.id;
      this.inFlight++;
      try {
        const { records, corrupt } = this.decode(rows);
        if (corrupt.length > 0) await this.reject(corrupt, 'corrupt', 'spooled record is not valid JSON');
        await this.deliver(rows, records);
      } finally {
        this.inFlight--;
      }
      // Only now is `idle` able to turn true: waiters for "everything delivered" look here.
      this.o.onSettled?.();
    }
  }

  /**
   * Parses spooled payloads once per batch (kept across retries). A corrupt row is taken out of
   * `rows` and returned apart, to be rejected rather than retried.
   */
  private decode(rows: SpooledRecord[]): { records: ReadableLogRecord[]; corrupt: SpooledRecord[] } {
    const records: ReadableLogRecord[] = [];
    const corrupt: SpooledRecord[] = [];
    const kept: SpooledRecord[] = [];
    for (const row of rows) {
      try {
        records.push(toReadable(JSON.parse(row.payload) as BridgeLogRecord, this.o.resource));
        kept.push(row);
      } catch {
        corrupt.push(row);
      }
    }
    if (corrupt.length > 0) rows.splice(0, rows.length, ...kept);
    return { records, corrupt };
  }

  private async deliver(rows: SpooledRecord[], records: ReadableLogRecord[]): Promise<void> {
    if (rows.length === 0) return;
    let attempt = 0;
    while (!this.stopped) {
      const started = performance.now();
      const result = await this.exportOnce(records);
      const seconds = (performance.now() - started) / 1000;
      if (this.stopped) return;
      if (result.ok) {
        this.o.metrics.exportDuration.observe({ outcome: 'success' }, seconds);
        this.o.metrics.exportRequests.inc({ outcome: 'success' });
        this.o.metrics.eventsDelivered.inc(rows.length);
        this.deliveredTotal += rows.length;
        await this.forget(rows);
        this.o.onDelivered(rows);
        if (this.failing) this.o.log.info({ records: rows.length }, 'collector accepts exports again');
        this.failing = false;
        this.lastError = undefined;
        return;
      }
      this.o.metrics.exportDuration.observe({ outcome: 'failure' }, seconds);
      this.o.metrics.exportRequests.inc({ outcome: result.status === undefined ? 'error' : `http_${result.status}` });
      if (result.status === 400 || result.status === 413 || result.status === -1) {
        if (rows.length === 1) {
          await this.reject(rows, result.status === 413 ? 'too_large' : 'invalid', result.message);
          return;
        }
        const mid = rows.length >> 1;
        await this.deliver(rows.slice(0, mid), records.slice(0, mid));
        await this.deliver(rows.slice(mid), records.slice(mid));
        return;
      }
      this.lastError = result.message;
      const delay = backoffDelay(this.o.backoff, attempt++);
      if (!this.failing || attempt % 20 === 1) {
        this.o.log.warn({ records: rows.length, attempt, delayMs: delay, error: result.message }, 'export failed; the batch stays spooled and is retried');
      }
      this.failing = true;
      await this.sleep(delay);
    }
  }

  private async reject(rows: SpooledRecord[], reason: string, message: string): Promise<void> {
    this.o.metrics.eventsRejected.inc({ reason }, rows.length);
    this.o.log.error({ records: rows.map((r) => `${r.sessionId}:${r.seq}`), reason, error: message }, 'collector refused a record; it is dropped and counted as rejected');
    await this.forget(rows);
    this.o.onDelivered([]);
  }

  /**
   * Deletes settled records from the spool. Deleting writes too (WAL), so on a full disk it can fail:
   * then the batch is NOT exported again (that would duplicate it without bound); the delete alone
   * is retried until it succeeds, or until shutdown (the next start then re-sends only this batch).
   */
  private async forget(rows: SpooledRecord[]): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        this.o.store.ack(rows);
        return;
      } catch (err) {
        if (attempt === 0) this.o.log.error({ records: rows.length, error: (err as Error).message }, 'cannot delete delivered records from the spool (disk full?); retrying');
        await this.sleep(backoffDelay(this.o.backoff, attempt));
      }
    }
  }

  private exportOnce(records: ReadableLogRecord[]): Promise<Outcome> {
    return new Promise((resolve) => {
      try {
        this.o.exporter.export(records, (r: ExportResult) => {
          if (r.code === ExportResultCode.SUCCESS) resolve({ ok: true });
          else resolve(describeFailure(r.error));
        });
      } catch (err) {
        // The serializer throws synchronously on a record it cannot encode: treat like a 400.
        resolve({ ok: false, status: -1, message: `cannot encode: ${(err as Error).message}` });
      }
    });
  }
}

function describeFailure(err: Error | undefined): Outcome {
  const e = err as (Error & { code?: unknown; data?: unknown; cause?: { code?: string } }) | undefined;
  const status = typeof e?.code === 'number' ? e.code : undefined;
  const netCode = typeof e?.code === 'string' ? e.code : e?.cause?.code;
  const message = status !== undefined
    ? `HTTP ${status}${e?.message ? ` ${e.message}` : ''}${typeof e?.data === 'string' && e.data ? `: ${e.data.slice(0, 200)}` : ''}`
    : netCode ?? e?.message ?? 'export failed';
  return status !== undefined ? { ok: false, status, message } : { ok: false, message };
}
