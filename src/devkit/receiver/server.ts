// A real OTLP logs receiver (POST /v1/logs, protobuf or JSON, optionally gzipped; and, when asked,
// OTLP/gRPC LogsService/Export on a port of its own, see grpc-listener.ts), which also takes spans
// (POST /v1/traces, gRPC TraceService/Export: decoded and kept, no failure injection) unless told
// to be a collector without a traces pipeline (`traces: false`), for the integration tests
// and the `demo` sink. It decodes what the exporter really sent and can be made
// to misbehave like a collector does: fail, throttle, reject part of a batch, stall, go down.
//
// Lifecycle: listening ⇄ stopped (stop() / start(), same port) → closed (close(), final).
// stop() is "the collector died": the listener closes AND every open socket is destroyed, so
// keep-alive clients see their connection drop and new connections get ECONNREFUSED. Requests that
// were still being delayed at that moment are neither answered nor accepted.
//
// Per HTTP request: path → method → content type → encoding → body (size limit), then the export
// both protocols share (#export): decode → delay → forced failure (status / failNext) → 400 if
// undecodable → partial rejection → 200; gRPC answers the same verdict with the matching code.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { decodeLogsRequest, type OtlpFormat, type ReceivedLogRecord } from './decode.js';
import { decodeTracesRequest, type ReceivedSpan } from './decode-traces.js';
import { readBody } from './read-body.js';
import type { ReceivedRequest, Receiver, ReceiverBehaviour, ReceiverOptions } from './receiver.js';
import { describeReceiver } from './receiver-summary.js';
import { RecordWaiters } from './record-waiters.js';
import { encodeExportResponse, encodeStatus, encodeText, type EncodedBody } from './response.js';
import { GrpcListener, type GrpcCallInfo, type GrpcHandler } from './grpc-listener.js';
import { grpcErrorFor } from './grpc-answer.js';

export type { ReceivedLogRecord } from './decode.js';
export type { ReceivedRequest, Receiver, ReceiverBehaviour, ReceiverOptions } from './receiver.js';

/** Starts a receiver listening on `host:port`. */
export async function startReceiver(opts: ReceiverOptions = {}): Promise<Receiver> {
  const receiver = new OtlpLogsReceiver(opts);
  await receiver.start();
  return receiver;
}

const LOGS_PATH = '/v1/logs';
const TRACES_PATH = '/v1/traces';
const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
// Two turns suffice in practice (measured); the margin costs microseconds.
const SETTLE_TURNS = 4;
const FORMATS: Readonly<Record<string, OtlpFormat>> = {
  'application/x-protobuf': 'protobuf',
  'application/json': 'json',
};

interface Answer extends EncodedBody {
  status: number;
  headers?: Record<string, string>;
}

/** How an export ended, before it is put in HTTP or gRPC terms; `status` is HTTP-style either way. */
type ExportVerdict =
  | { kind: 'accepted'; status: number; rejected: number; message: string }
  | { kind: 'refused'; status: number; message: string; retryAfterSeconds?: number };

class OtlpLogsReceiver implements Receiver {
  readonly records: ReceivedLogRecord[] = [];
  readonly spans: ReceivedSpan[] = [];
  readonly requests: ReceivedRequest[] = [];
  behaviour: ReceiverBehaviour = {};

  readonly #server = createServer((req, res) => void this.#handle(req, res));
  readonly #sockets = new Set<Socket>();
  readonly #waiters = new RecordWaiters(
    () => this.records,
    () => describeReceiver(this.records, this.requests),
  );
  readonly #host: string;
  readonly #onRecord: ((record: ReceivedLogRecord) => void) | undefined;
  readonly #retain: boolean;
  readonly #onSpan: ((span: ReceivedSpan) => void) | undefined;
  readonly #traces: boolean;
  readonly #grpc: GrpcListener | undefined;
  #port: number;
  #closed = false;
  // Aborted by stop(): requests in flight belong to the listener generation that died.
  #generation = new AbortController();
  // start/stop/close run one at a time, in call order.
  #lifecycle: Promise<void> = Promise.resolve();

  constructor(opts: ReceiverOptions) {
    this.#host = opts.host ?? '127.0.0.1';
    this.#port = opts.port ?? 0;
    this.#onRecord = opts.onRecord;
    this.#retain = opts.retain ?? true;
    this.#onSpan = opts.onSpan;
    this.#traces = opts.traces ?? true;
    this.#grpc =
      opts.grpc &&
      new GrpcListener(
        this.#host,
        opts.grpc.port ?? 0,
        opts.grpc.tls,
        (body, call) => this.#handleGrpc(body, call),
        this.#traces ? (body) => Promise.resolve(this.#grpcTraces(body)) : undefined,
      );
    // Clients (the exporter's agent) keep sockets alive without an idle limit; the server closing an
    // idle socket just as a request goes out is the classic ECONNRESET race. A long server-side idle
    // timeout makes that rare enough not to show up as spurious retries in tests.
    this.#server.keepAliveTimeout = 60_000;
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
  }

  get url(): string {
    return `http://${this.#reachableHost()}:${this.#port}`;
  }

  get grpcUrl(): string | undefined {
    return this.#grpc?.url(this.#reachableHost());
  }

  /** A wildcard bind is reachable on loopback; IPv6 literals need brackets in a URL. */
  #reachableHost(): string {
    const host = this.#host === '0.0.0.0' ? '127.0.0.1' : this.#host === '::' ? '::1' : this.#host;
    return host.includes(':') ? `[${host}]` : host;
  }

  get logsUrl(): string {
    return `${this.url}${LOGS_PATH}`;
  }

  start(): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#closed) throw new Error('receiver is closed');
      if (this.#server.listening) return;
      await new Promise<void>((resolve, reject) => {
        const onError = (err: Error): void => reject(err);
        this.#server.once('error', onError);
        this.#server.listen({ host: this.#host, port: this.#port }, () => {
          this.#server.off('error', onError);
          resolve();
        });
      });
      this.#port = (this.#server.address() as AddressInfo).port;
      try {
        await this.#grpc?.start();
      } catch (err) {
        // Both sides listen, or neither: a receiver half up would look like a collector that drops gRPC.
        await new Promise<void>((resolve) => this.#server.close(() => resolve()));
        throw err;
      }
    });
  }

  stop(): Promise<void> {
    return this.#enqueue(() => this.#stopNow());
  }

  close(): Promise<void> {
    return this.#enqueue(async () => {
      this.#closed = true;
      await this.#stopNow();
    });
  }

  waitFor(predicate: (records: ReceivedLogRecord[]) => boolean, timeoutMs = 10_000): Promise<void> {
    return this.#waiters.waitFor(predicate, timeoutMs);
  }

  #enqueue(op: () => Promise<void>): Promise<void> {
    const next = this.#lifecycle.then(op);
    this.#lifecycle = next.catch(() => undefined);
    return next;
  }

  async #stopNow(): Promise<void> {
    this.#generation.abort();
    this.#generation = new AbortController();
    this.#grpc?.stop();
    if (!this.#server.listening) return;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
    // Let in-process clients notice: their keep-alive sockets see the FIN on the next event-loop turn
    // and leave the agent's pool a turn or two later. Resolving earlier lets a request that follows
    // stop() immediately reuse such a socket and fail with ECONNRESET instead of ECONNREFUSED.
    for (let turn = 0; turn < SETTLE_TURNS; turn++) await nextTurn();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const signal = this.#generation.signal;
    const entry: ReceivedRequest = {
      at: Date.now(),
      contentType: req.headers['content-type'] ?? '',
      bytes: 0,
      records: 0,
      rejected: 0,
      headers: flattenHeaders(req),
      status: 0,
    };
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined) entry.contentEncoding = encoding;
    let answer: Answer;
    try {
      answer = await this.#process(req, entry, signal);
    } catch (err) {
      if (signal.aborted || req.destroyed) return; // stopped, or the client went away mid-body
      answer = { status: 500, ...encodeText(`receiver error: ${(err as Error).message}`) };
    }
    if (signal.aborted) return;
    entry.status = answer.status;
    if (this.#retain) this.requests.push(entry);
    res.writeHead(answer.status, {
      'content-type': answer.contentType,
      'content-length': String(answer.body.byteLength),
      ...answer.headers,
    });
    res.end(answer.body);
  }

  async #process(req: IncomingMessage, entry: ReceivedRequest, signal: AbortSignal): Promise<Answer> {
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    const traces = path === TRACES_PATH && this.#traces;
    if (path !== LOGS_PATH && !traces)
      return {
        status: 404,
        ...encodeText(`not found: ${path} (only POST ${LOGS_PATH}${this.#traces ? ` and ${TRACES_PATH}` : ''})`),
      };
    if (req.method !== 'POST') {
      return { status: 405, headers: { allow: 'POST' }, ...encodeText(`method ${req.method ?? ''} not allowed`) };
    }
    const mediaType = (entry.contentType.split(';')[0] ?? '').trim().toLowerCase();
    const format = FORMATS[mediaType];
    if (format === undefined) {
      return {
        status: 415,
        ...encodeText(
          `unsupported content type "${entry.contentType}": use application/x-protobuf or application/json`,
        ),
      };
    }
    const encoding = (entry.contentEncoding ?? '').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity' && encoding !== 'gzip') {
      return { status: 415, ...encodeText(`unsupported content encoding "${encoding}": use gzip or none`) };
    }

    const body = await readBody(req, this.behaviour.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, encoding === 'gzip');
    entry.bytes = body.wireBytes;
    if (!body.ok) return { status: body.status, ...encodeStatus(format, body.status, body.message) };

    if (traces) {
      const spans = this.#acceptSpans(body.body, format);
      if (typeof spans === 'string') return { status: 400, ...encodeStatus(format, 400, spans) };
      entry.records = spans;
      return { status: 200, ...encodeExportResponse(format, 0, '') };
    }
    const verdict = await this.#export(body.body, format, entry, signal);
    if (verdict.kind === 'accepted')
      return { status: verdict.status, ...encodeExportResponse(format, verdict.rejected, verdict.message) };
    const headers =
      verdict.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(verdict.retryAfterSeconds) };
    return {
      status: verdict.status,
      ...(headers && { headers }),
      ...encodeStatus(format, verdict.status, verdict.message),
    };
  }

  /** An OTLP/gRPC call: the same export as over HTTP, answered in gRPC terms (grpc-answer.ts). */
  async #handleGrpc(body: Buffer, call: GrpcCallInfo): ReturnType<GrpcHandler> {
    const signal = this.#generation.signal;
    const entry: ReceivedRequest = {
      at: Date.now(),
      contentType: 'application/grpc',
      bytes: body.length,
      records: 0,
      rejected: 0,
      headers: call.metadata,
      status: 0,
    };
    const encoding = call.metadata['grpc-encoding'];
    if (encoding !== undefined) entry.contentEncoding = encoding;
    if (call.clientCertificate !== undefined) entry.clientCertificate = call.clientCertificate;
    const limit = this.behaviour.maxBodyBytes;
    const verdict: ExportVerdict =
      limit !== undefined && body.length > limit
        ? { kind: 'refused', status: 413, message: `message of ${body.length} bytes exceeds ${limit} bytes` }
        : await this.#export(body, 'protobuf', entry, signal);
    if (signal.aborted) return 'drop';
    entry.status = verdict.status;
    if (verdict.kind === 'accepted') {
      entry.grpcCode = 0;
      if (this.#retain) this.requests.push(entry);
      return {
        ok: true,
        response: Buffer.from(encodeExportResponse('protobuf', verdict.rejected, verdict.message).body),
      };
    }
    const error = grpcErrorFor(verdict.status, verdict.message, verdict.retryAfterSeconds);
    entry.grpcCode = error.code;
    if (this.#retain) this.requests.push(entry);
    return { ok: false, error };
  }

  /**
   * The export itself, whatever carried it: decode → delay → forced failure (status / failNext) →
   * refused if undecodable → partial rejection → accepted.
   */
  async #export(body: Buffer, format: OtlpFormat, entry: ReceivedRequest, signal: AbortSignal): Promise<ExportVerdict> {
    const behaviour = this.behaviour;
    let records: ReceivedLogRecord[] | undefined;
    let decodeError: string | undefined;
    try {
      records = decodeLogsRequest(body, format);
      entry.records = records.length;
    } catch (err) {
      decodeError = (err as Error).message;
    }

    if (behaviour.delayMs !== undefined && behaviour.delayMs > 0) await sleep(behaviour.delayMs, undefined, { signal });

    const forced = this.#forcedStatus();
    if (forced !== undefined) {
      // A forced 2xx is a black hole: answered as a success, nothing kept.
      if (forced >= 200 && forced < 300) return { kind: 'accepted', status: forced, rejected: 0, message: '' };
      const message = `receiver answers ${forced} (injected failure)`;
      const after = behaviour.retryAfterSeconds;
      return after === undefined
        ? { kind: 'refused', status: forced, message }
        : { kind: 'refused', status: forced, message, retryAfterSeconds: after };
    }
    if (records === undefined) return { kind: 'refused', status: 400, message: decodeError ?? 'undecodable body' };

    const reject = behaviour.rejectRecords;
    const accepted = reject === undefined ? records : records.filter((r) => !reject(r));
    entry.rejected = records.length - accepted.length;
    this.#accept(accepted);
    const message = entry.rejected > 0 ? `${entry.rejected} log record(s) rejected by the receiver's behaviour` : '';
    return { kind: 'accepted', status: 200, rejected: entry.rejected, message };
  }

  /** Decodes and keeps the spans of a traces request: their count, or why it could not be decoded. */
  #acceptSpans(body: Buffer, format: OtlpFormat): number | string {
    let spans: ReceivedSpan[];
    try {
      spans = decodeTracesRequest(body, format);
    } catch (err) {
      return (err as Error).message;
    }
    if (this.#retain) this.spans.push(...spans);
    if (this.#onSpan !== undefined) for (const s of spans) this.#onSpan(s);
    return spans.length;
  }

  #grpcTraces(body: Buffer): Awaited<ReturnType<GrpcHandler>> {
    const spans = this.#acceptSpans(body, 'protobuf');
    if (typeof spans === 'string') return { ok: false, error: grpcErrorFor(400, spans, undefined) };
    return { ok: true, response: Buffer.alloc(0) };
  }

  /** The status a failure injection imposes on this request, consuming one `failNext`. */
  #forcedStatus(): number | undefined {
    const { status, failNext } = this.behaviour;
    if (status !== undefined) return status;
    if (failNext !== undefined && failNext > 0) {
      this.behaviour.failNext = failNext - 1;
      return 503;
    }
    return undefined;
  }

  #accept(accepted: ReceivedLogRecord[]): void {
    if (this.#retain) for (const record of accepted) this.records.push(record);
    if (this.#onRecord !== undefined) for (const record of accepted) this.#onRecord(record);
    if (accepted.length > 0) this.#waiters.notify();
  }
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
