// Public contract of the session-service simulator. Other parts of the project (demo, integration
// tests, benchmark) are written against these shapes; keep them stable.
import type { Envelope, TelemetryEvent } from '../../upstream/envelope.js';
import type { EventMix } from './events/mix.js';
import type { SimPool } from './pools.js';

export interface SimulatorOptions {
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** Port; default 0 (ephemeral). */
  port?: number;
  /** Accepted bearer tokens; default ['sim-key']. */
  apiKeys?: string[];
  /** Per-session replay buffer (events retained), default 8192 as in current images; the oldest is evicted. */
  bufferSize?: number;
  /**
   * Events each session keeps in its archive (GET /browsers/{id}/telemetry/events), default 200,000;
   * 0 serves no archive route at all (404), as an older service.
   */
  archiveSize?: number;
  /** Idle time before a keepalive comment frame, default 15000 (docs/service-api.md "Limits"). */
  keepaliveMs?: number;
  /** Seed for deterministic event generation; random when absent. */
  seed?: number;
  /** false: GET /browsers answers 404, as a service without the session list. Default true. */
  listRoute?: boolean;
}

/** Fault injection, global and mutable; read on every stream request and every write. */
export interface Faults {
  /** Each stream request pops one and answers that status with an Error body (429 carries Retry-After). */
  failNext: Array<{ status: number; retryAfterSeconds?: number; code?: string }>;
  /** The next N stream requests answer 200 text/plain. */
  wrongContentType: number;
  /** Per connection: after this many complete frames, write part of the next one and drop the socket. */
  cutAfterFrames?: number;
  /** Use \r\n line endings. */
  crlf: boolean;
  /** Pretty-print the envelope over several `data:` lines (they rejoin with \n to equivalent JSON). */
  splitData: boolean;
  /** Write frames in chunks of this many bytes, split anywhere (inside UTF-8 sequences, between \r and \n). */
  chunkSize?: number;
  /** Use \r alone as the line end (legal SSE; the last frame then ends in a bare CR). */
  crOnly: boolean;
  /**
   * A Last-Event-ID beyond the current seq (the client knew an earlier epoch): 'wait' sends nothing
   * until seq passes it; 'replay' starts from the oldest retained event. Real services differ.
   */
  staleResume: 'wait' | 'replay';
  /** Stream requests of an ended session answered 502 before the 404s start (the VM going away). */
  endedServerErrors: number;
  /** Each GET /browsers request pops one and answers that status (429 carries Retry-After). */
  listFailNext?: Array<{ status: number; retryAfterSeconds?: number }>;
  /** While true, GET /browsers requests are held and never answered, as by a paused service (SIGSTOP). */
  listHold?: boolean;
  /** Each archive request (GET /browsers/{id}/telemetry/events) pops one and answers that status (429 carries Retry-After). */
  archiveFailNext?: Array<{ status: number; retryAfterSeconds?: number }>;
  /** GET /browsers statuses answered 400 invalid_input, as a service that does not take them (e.g. ['all']). */
  listRefusedStatuses?: Array<'active' | 'deleted' | 'all'>;
  /** The list's order: newest first (default, as observed) or oldest first. */
  listOrder?: 'newest' | 'oldest';
}

export interface SimSessionOptions {
  /** false: the stream opens (200) and stays empty (docs/service-api.md "Stream telemetry events" rule 5). */
  telemetry?: boolean;
  /** Pool id or name; an unknown name creates a default pool with that name. */
  pool?: string;
  /**
   * Categories captured on top of the defaults (control, connection, system, captcha) and the
   * pool's config, as a session's own telemetry config opts in; 'all' captures everything.
   */
  categories?: string[] | 'all';
  /** The mix of its generated events (events/mix.ts); default 'catalogue'. */
  mix?: EventMix;
  /** What GET /browsers shows and filters on. */
  name?: string;
  tags?: Record<string, string>;
  /** The session's region (`us-east` by default, as the service's). */
  region?: string;
  /** The session's own OTLP export (`telemetry.export.otlp` on the session object). */
  otlpExport?: { enabled: boolean; destination?: string };
}

export interface SimSession {
  readonly id: string;
  /** Last seq assigned (malformed frames included). */
  readonly lastSeq: number;
  readonly ended: boolean;
  /** Total events generated (emit + emitEvent). */
  readonly emitted: number;
  /** Generates realistic events over the whole catalogue (or only `types`) and delivers them. */
  emit(count?: number, opts?: { types?: string[] }): Envelope[];
  /** Pushes one specific event; ts, category and source are filled in when absent. */
  emitEvent(event: Partial<TelemetryEvent> & { type: string }): Envelope;
  /** Consumes the next seq for a frame whose data is not JSON ('json') or not an envelope ('envelope'). */
  injectMalformed(kind?: 'json' | 'envelope'): number;
  /** Starts steady background production at this rate; 0 stops it; with `count`, it stops after that many events. */
  produce(ratePerSecond: number, count?: number): void;
  /**
   * The session terminates as the real one does: live connections are reset (the last frame cut in
   * half when one was still unsent), the next stream requests answer 502 (faults.endedServerErrors),
   * then 404. The archive keeps every event.
   */
  end(): void;
  /**
   * The in-VM service process restarts: live connections drop, seq starts again at 1, the buffer
   * is emptied and events carry a new telemetry_session_id (the same one with
   * `sameTelemetrySessionId`: a service that loses the position without saying so). The archive
   * keeps the old epoch.
   */
  restartService(opts?: { sameTelemetrySessionId?: boolean }): void;
  /** The telemetry_session_id events carry now (changes with restartService). */
  readonly telemetrySessionId: string;
}

export interface SimStats {
  /** TCP connections accepted since start. */
  connections: number;
  /** SSE streams currently open. */
  activeStreams: number;
  /** Service API requests (stream and pool; the /_sim/ control API is not counted). */
  requests: number;
  /** Service API responses by HTTP status. */
  byStatus: Record<number, number>;
  /** GET /browsers requests (every page counts). */
  listRequests: number;
}

export interface Simulator {
  /** Base URL, e.g. http://127.0.0.1:PORT. */
  readonly url: string;
  createSession(id: string, opts?: SimSessionOptions): SimSession;
  session(id: string): SimSession | undefined;
  /** Pools served by GET /browser_pools/{id_or_name}, keyed by id. */
  readonly pools: Map<string, SimPool>;
  addPool(pool: SimPool): void;
  faults: Faults;
  readonly stats: SimStats;
  /** Closes the server and every stream immediately. */
  close(): Promise<void>;
}
