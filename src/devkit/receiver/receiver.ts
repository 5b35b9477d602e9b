// The receiver's contract: what tests and the demo see of it. The implementation is server.ts.
import type { ReceivedLogRecord } from './decode.js';
import type { ReceivedSpan } from './decode-traces.js';
import type { GrpcServerTls } from './grpc-listener.js';

export type { GrpcServerTls } from './grpc-listener.js';

/** One answered request to the receiver. */
export interface ReceivedRequest {
  /** When the request arrived (epoch ms): tests measure waits between attempts by it, not by when they noticed. */
  at: number;
  /** The Content-Type header as sent ('' when missing); application/grpc for a gRPC call. */
  contentType: string;
  /** The Content-Encoding header as sent, when present. */
  contentEncoding?: string;
  /** Body size on the wire (before decompression). */
  bytes: number;
  /** Records the body carried (0 when it could not be decoded), accepted or not. */
  records: number;
  /** Of those, the ones rejected through partial_success. */
  rejected: number;
  /** Request headers, names lower-cased, repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The HTTP status the receiver answered with (for a gRPC call, the one its code stands for). */
  status: number;
  /** A gRPC call's status code (0 OK); absent for OTLP/HTTP. */
  grpcCode?: number;
  /** The client certificate's subject CN, for a gRPC call over mutual TLS. */
  clientCertificate?: string;
}

/** How the receiver answers; read afresh for every request, so tests may change it at any time. */
export interface ReceiverBehaviour {
  /** Answer every request with this status and keep nothing (e.g. 503; a 2xx makes a black hole). */
  status?: number;
  /** Answer the next N requests with 503 (decremented per request). */
  failNext?: number;
  /** Sent as Retry-After with forced failures. */
  retryAfterSeconds?: number;
  /** Records for which this returns true are rejected via partial_success and not kept. */
  rejectRecords?: (record: ReceivedLogRecord) => boolean;
  /** Wait this long before answering (and accepting). */
  delayMs?: number;
  /** Answer 413 when the body, on the wire or decompressed, is larger. Default 64 MiB. */
  maxBodyBytes?: number;
}

/** Options of startReceiver. */
export interface ReceiverOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Called for every accepted record, in arrival order (the standalone receiver prints them). */
  onRecord?: (record: ReceivedLogRecord) => void;
  /** Called for every accepted span (POST /v1/traces, gRPC TraceService/Export). */
  onSpan?: (span: ReceivedSpan) => void;
  /**
   * Accept traces (default true). false is a collector without a traces pipeline: /v1/traces
   * answers 404 and gRPC TraceService/Export UNIMPLEMENTED.
   */
  traces?: boolean;
  /** Keep records and requests in memory (default true); false for a long-running sink. */
  retain?: boolean;
  /**
   * Also accept OTLP/gRPC, on this port of the same host (0 or absent: any free port), optionally
   * over TLS. A message over 4 MiB is refused with RESOURCE_EXHAUSTED, as by the Collector.
   */
  grpc?: { port?: number; tls?: GrpcServerTls };
}

/** A running OTLP logs receiver (implementation: server.ts). */
export interface Receiver {
  /** Base URL, e.g. http://127.0.0.1:PORT. */
  readonly url: string;
  /** `${url}/v1/logs`, the exporter's endpoint. */
  readonly logsUrl: string;
  /** The OTLP/gRPC endpoint (http://host:port, https:// with TLS); undefined without `grpc`. */
  readonly grpcUrl: string | undefined;
  /** Every accepted record (not the rejected ones), in arrival order. */
  readonly records: ReceivedLogRecord[];
  /** Every accepted span, in arrival order. */
  readonly spans: ReceivedSpan[];
  /** Every answered request, in answer order. */
  readonly requests: ReceivedRequest[];
  behaviour: ReceiverBehaviour;
  /** Resolves once `predicate(records)` holds; rejects after `timeoutMs` (default 10 s) with counts. */
  waitFor(predicate: (records: ReceivedLogRecord[]) => boolean, timeoutMs?: number): Promise<void>;
  /**
   * Stops listening and destroys open sockets (a down collector): once it resolves, in-process
   * clients get ECONNREFUSED. Idempotent.
   */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Stops for good. Idempotent. */
  close(): Promise<void>;
}
