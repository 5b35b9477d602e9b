// The receiver's OTLP/gRPC side: a gRPC server offering LogsService/Export, plaintext or TLS (with a
// client certificate required when a client CA is given). It takes the request bytes as they
// arrive (gzip undone by the library) and hands them to the receiver, which decodes and answers
// exactly as for OTLP/HTTP; this file only speaks gRPC.
//
// Lifecycle as the HTTP side's: listening ⇄ stopped (same port) → closed. A grpc-js server cannot
// listen again once shut down, so every start() makes a new one; stop() is forceShutdown(): the
// collector dies, open connections drop, calls in flight get no answer.
import { Metadata, Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import type { GrpcError } from './grpc-answer.js';

const EXPORT_PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
const TRACES_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const passThrough = (b: Buffer): Buffer => b;

const service = (path: string) => ({
  export: {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: passThrough,
    requestDeserialize: passThrough,
    responseSerialize: passThrough,
    responseDeserialize: passThrough,
  },
});

/** TLS for the gRPC listener (PEM). With `clientCa`, a client must present a certificate it signed. */
export interface GrpcServerTls {
  cert: string;
  key: string;
  clientCa?: string;
}

/** What the receiver learns of one call besides its bytes. */
export interface GrpcCallInfo {
  metadata: Record<string, string>;
  /** The subject CN of the client certificate, when the call came over mutual TLS. */
  clientCertificate?: string;
}

export type GrpcHandler = (
  body: Buffer,
  info: GrpcCallInfo,
) => Promise<{ ok: true; response: Buffer } | { ok: false; error: GrpcError } | 'drop'>;

export class GrpcListener {
  #server: Server | undefined;
  #port: number;

  constructor(
    private readonly host: string,
    port: number,
    private readonly tls: GrpcServerTls | undefined,
    private readonly handle: GrpcHandler,
    /** TraceService/Export, when the receiver accepts traces; without it the call is UNIMPLEMENTED. */
    private readonly handleTraces?: GrpcHandler,
  ) {
    this.#port = port;
  }

  get port(): number {
    return this.#port;
  }

  /** http://host:port, or https:// when the listener speaks TLS. */
  url(host: string): string {
    return `${this.tls ? 'https' : 'http'}://${host}:${this.#port}`;
  }

  get listening(): boolean {
    return this.#server !== undefined;
  }

  async start(): Promise<void> {
    if (this.#server) return;
    const server = new Server();
    server.addService(service(EXPORT_PATH), {
      export: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) =>
        void this.#export(call, callback, this.handle),
    });
    const traces = this.handleTraces;
    if (traces !== undefined)
      server.addService(service(TRACES_EXPORT_PATH), {
        export: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) =>
          void this.#export(call, callback, traces),
      });
    const address = `${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.#port}`;
    this.#port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(address, this.#credentials(), (err, port) => (err ? reject(err) : resolve(port)));
    });
    this.#server = server;
  }

  stop(): void {
    this.#server?.forceShutdown();
    this.#server = undefined;
  }

  #credentials(): ServerCredentials {
    if (!this.tls) return ServerCredentials.createInsecure();
    const ca = this.tls.clientCa === undefined ? null : Buffer.from(this.tls.clientCa);
    return ServerCredentials.createSsl(
      ca,
      [{ cert_chain: Buffer.from(this.tls.cert), private_key: Buffer.from(this.tls.key) }],
      ca !== null,
    );
  }

  async #export(
    call: ServerUnaryCall<Buffer, Buffer>,
    callback: sendUnaryData<Buffer>,
    handle: GrpcHandler,
  ): Promise<void> {
    const metadata: Record<string, string> = {};
    for (const [name, value] of Object.entries(call.metadata.getMap()))
      metadata[name] = Buffer.isBuffer(value) ? value.toString('base64') : value;
    const peer = call.getAuthContext().sslPeerCertificate;
    const info: GrpcCallInfo = peer?.subject?.CN
      ? { metadata, clientCertificate: String(peer.subject.CN) }
      : { metadata };
    let answer: Awaited<ReturnType<GrpcHandler>>;
    try {
      answer = await handle(call.request, info);
    } catch (err) {
      callback({ code: 13, details: `receiver error: ${(err as Error).message}` }, null);
      return;
    }
    if (answer === 'drop') return;
    if (answer.ok) {
      callback(null, answer.response);
      return;
    }
    const trailer = new Metadata();
    if (answer.error.statusDetails) trailer.set('grpc-status-details-bin', answer.error.statusDetails);
    callback({ code: answer.error.code, details: answer.error.details, metadata: trailer }, null);
  }
}
