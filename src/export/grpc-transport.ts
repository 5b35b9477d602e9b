// Sends one OTLP/gRPC logs request (LogsService/Export) and says what happened as a value, like the
// HTTP transport: success with the partial-success count, retryable (with the RetryInfo delay) or
// failure (grpc-outcome.ts classifies the status). No retry here: delivery owns the one retry layer,
// so the channel's own retries are off, and a call does not wait for a connection (waitForReady is
// false): a collector that is down fails the call at once with UNAVAILABLE instead of holding it.
//
// The request is the protobuf body the bridge already built from its spooled bytes; the client is
// given a pass-through serializer, so nothing is decoded or encoded a second time. Unlike HTTP, the
// body's chunks are joined here: grpc-js takes a message as one buffer (its serializer's result),
// which it copies once more behind the 5-byte gRPC message prefix anyway. Every call has
// its own deadline (the exporter timeout), kept here rather than by grpc-js: its deadline timer ends
// the call in the timers phase, so a process paused past it (SIGSTOP, a frozen VM) dropped the answer
// that came in time and sent the records again; ours gives its verdict one turn later, once the
// socket was read, as the HTTP client does (util/http-client.ts). Headers go as metadata; gzip is the channel's message
// compression. The connection: plaintext for http://, TLS for https:// (config/otlp-endpoint.ts
// resolved the scheme), with the collector's CA and client certificate when configured.
import { Client, credentials, Metadata, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import type { TlsFiles } from '../config/tls.js';
import { decodePartialSuccess } from '../wire/partial-success.js';
import { GRPC, grpcFailure } from './grpc-outcome.js';
import type { ExportOutcome, OtlpTransport } from './otlp-transport.js';
import { joinBody } from '../wire/otlp-request.js';

export const LOGS_EXPORT_METHOD = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
/** Spans (docs/traces.md): the same call shape, the traces service's method. */
export const TRACES_EXPORT_METHOD = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
/** grpc-js' CompressionAlgorithms: 0 identity, 2 gzip. */
const GZIP = 2;
const IDENTITY = 0;

export interface GrpcTransportOptions {
  /** http://host:port (plaintext) or https://host:port (TLS). */
  url: string;
  headers: Record<string, string>;
  compression: 'gzip' | 'none';
  timeoutMs: number;
  userAgent: string;
  tls?: TlsFiles;
  /** The method called; LogsService/Export unless told otherwise (TraceService/Export for spans). */
  method?: string;
  /** The channel reconnects a lost connection with this backoff (delivery's, so both agree). */
  reconnect?: { initialMs: number; maxMs: number };
}

const passThrough = (b: Buffer): Buffer => b;

export function createGrpcTransport(o: GrpcTransportOptions): OtlpTransport {
  const u = new URL(o.url);
  const secure = u.protocol === 'https:';
  const target = `${u.hostname}:${u.port || (secure ? '443' : '80')}`;
  const tls = o.tls ?? {};
  const creds = secure ? credentials.createSsl(pem(tls.ca), pem(tls.key), pem(tls.cert)) : credentials.createInsecure();
  const client = new Client(target, creds, {
    'grpc.primary_user_agent': o.userAgent,
    'grpc.default_compression_algorithm': o.compression === 'gzip' ? GZIP : IDENTITY,
    // One retry layer (delivery): no transparent or configured retries inside the channel.
    'grpc.enable_retries': 0,
    // grpc-js waits up to 120 s between reconnection attempts by default: a collector back after
    // an outage would stay unused long after delivery's own backoff wants to try again.
    ...(o.reconnect
      ? {
          'grpc.initial_reconnect_backoff_ms': o.reconnect.initialMs,
          'grpc.max_reconnect_backoff_ms': o.reconnect.maxMs,
        }
      : {}),
  });
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(o.headers)) metadata.set(name.toLowerCase(), value);
  const inFlight = new Set<ClientUnaryCall>();
  let closed = false;

  return {
    url: o.url,
    send(body) {
      if (closed) return Promise.resolve({ kind: 'retryable', message: 'transport closed' });
      return new Promise<ExportOutcome>((resolve) => {
        let verdict: NodeJS.Immediate | undefined;
        const deadline = setTimeout(() => {
          verdict = setImmediate(() => {
            settle(grpcFailure(GRPC.DEADLINE_EXCEEDED, `Deadline exceeded after ${o.timeoutMs} ms`));
            call.cancel();
          });
        }, o.timeoutMs);
        const settle = (outcome: ExportOutcome): void => {
          if (!inFlight.delete(call)) return;
          clearTimeout(deadline);
          if (verdict) clearImmediate(verdict);
          resolve(outcome);
        };
        const call = client.makeUnaryRequest<Buffer, Buffer>(
          o.method ?? LOGS_EXPORT_METHOD,
          passThrough,
          passThrough,
          joinBody(body),
          metadata.clone(),
          {},
          (err, response) => settle(err ? fromError(err) : fromResponse(response)),
        );
        inFlight.add(call);
      });
    },
    async close() {
      closed = true;
      // Calls in flight are cancelled, not awaited: a collector that never answers must not hold
      // shutdown past its grace period (their records stay spooled).
      for (const call of inFlight) call.cancel();
      client.close();
    },
  };
}

function fromResponse(response: Buffer | undefined): ExportOutcome {
  const partial = response ? decodePartialSuccess(response, 'application/x-protobuf') : null;
  return partial
    ? { kind: 'success', rejected: partial.rejected, message: partial.message }
    : { kind: 'success', rejected: 0 };
}

function fromError(err: ServiceError): ExportOutcome {
  const [details] = err.metadata?.get('grpc-status-details-bin') ?? [];
  return grpcFailure(err.code, err.details, Buffer.isBuffer(details) ? details : undefined);
}

function pem(text: string | undefined): Buffer | null {
  return text === undefined ? null : Buffer.from(text);
}
