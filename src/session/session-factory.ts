// The one place a SessionPipeline's dependencies are put together, for the main thread
// (daemon/supervisor.ts) and for every ingest worker (ingest/worker.ts) alike: the stream settings
// read from the configuration, and one archive reader per thread shared by its sessions.
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/schema.js';
import type { Mapper } from '../mapping/mapper.js';
import type { RecordEncoder } from '../wire/encode-record.js';
import type { Spool } from '../store/spool.js';
import type { SessionRow } from '../store/store.js';
import { ArchiveReader } from '../upstream/archive.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { Emit } from '../vocabulary/facts.js';
import { SessionPipeline } from './session-pipeline.js';
import type { SpanTapFactory } from './span-tap.js';

/** What every session of a thread shares. */
export interface SessionEnvironment {
  config: BridgeConfig;
  client: UpstreamClient;
  mapper: Mapper;
  spool: Pick<Spool, 'append' | 'full' | 'waitForRoom'>;
  encode: RecordEncoder;
  emit: Emit;
  log: Logger;
  /** Spans beside the records, when traces are on. */
  spans?: SpanTapFactory;
}

/** Makes a session from its stored row; `onEnded` runs once its stream answered 404 or 410. */
export type SessionFactory = (row: SessionRow, onEnded: (sessionId: string) => Promise<void>) => SessionPipeline;

export function sessionFactory(env: SessionEnvironment): SessionFactory {
  const { config, ...shared } = env;
  // One reader per thread: a service without the archive route is asked once in a while, not per gap.
  const archive = new ArchiveReader(env.client, env.log, { mode: config.upstream.archive, emit: env.emit });
  const settings = {
    idleTimeoutMs: config.upstream.idleTimeoutMs,
    backoff: config.upstream.backoff,
    defaultStart: config.start,
    archiveRetryMs: config.upstream.archiveRetryMs,
  };
  return (row, onEnded) => new SessionPipeline(row, { ...shared, ...settings, archive, onEnded });
}
