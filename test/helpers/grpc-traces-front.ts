// A gRPC TraceService the test steers, standing for a collector's OTLP/gRPC traces side: each call
// is answered as the test says (UNIMPLEMENTED for a collector without a traces pipeline,
// RESOURCE_EXHAUSTED with RetryInfo for one that asks the client to wait) or accepted, its spans
// decoded and kept. It counts the calls it receives. Plaintext on 127.0.0.1.
import { Metadata, Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { decodeTracesRequest, type ReceivedSpan } from '../../src/devkit/receiver/decode-traces.js';
import { encodeStatusWithRetryInfo } from '../../src/devkit/receiver/grpc-answer.js';

const TRACES_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const passThrough = (b: Buffer): Buffer => b;

/** A refusal: the gRPC code, and the RetryInfo delay when the collector asks for one. */
export interface GrpcRefusal {
  code: number;
  retryDelayMs?: number;
}

/** What the front answers to call `n` (from 0); undefined accepts it. */
export type GrpcTracesAnswer = (n: number) => GrpcRefusal | undefined;

export interface GrpcTracesFront {
  /** http://127.0.0.1:port, for OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  requests(): number;
  answer(a: GrpcTracesAnswer): void;
  close(): void;
}

export async function grpcTracesFront(first: GrpcTracesAnswer): Promise<GrpcTracesFront> {
  let answer = first;
  let n = 0;
  const spans: ReceivedSpan[] = [];
  const server = new Server();
  server.addService(
    {
      export: {
        path: TRACES_EXPORT_PATH,
        requestStream: false,
        responseStream: false,
        requestSerialize: passThrough,
        requestDeserialize: passThrough,
        responseSerialize: passThrough,
        responseDeserialize: passThrough,
      },
    },
    {
      export: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        const refusal = answer(n++);
        if (refusal === undefined) {
          spans.push(...decodeTracesRequest(call.request, 'protobuf'));
          callback(null, Buffer.alloc(0));
          return;
        }
        const details = `refused by the front (${refusal.code})`;
        const trailer = new Metadata();
        if (refusal.retryDelayMs !== undefined)
          trailer.set(
            'grpc-status-details-bin',
            encodeStatusWithRetryInfo(refusal.code, details, refusal.retryDelayMs),
          );
        callback({ code: refusal.code, details, metadata: trailer }, null);
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests: () => n,
    answer: (a) => (answer = a),
    close: () => server.forceShutdown(),
  };
}
