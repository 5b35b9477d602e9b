// A bridge in this process, on real sockets, whose spans go through a loopback front the test
// steers (collector-front.ts) while its records go straight to the receiver: a collector that does
// not want spans (no traces pipeline, 429, …) for as long as the test says, and then does. The
// front counts the traces requests it receives; the bridge's warnings and infos are kept.
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startBridge, type Bridge } from '../../src/daemon/bridge.js';
import { collectorFront, type FrontAnswer } from './collector-front.js';
import { grpcTracesFront, type GrpcTracesAnswer } from './grpc-traces-front.js';
import type { SimSession } from '../../src/devkit/simulator/index.js';
import { FAST, harness, type Harness } from './harness.js';

export const SESSION = 'tr';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** What the front answers to a traces request; undefined hands it on to the receiver. */
export type TracesAnswer = (n: number) => FrontAnswer | undefined;

export interface TracesRefusal {
  h: Harness;
  /** The simulator's session the bridge follows (SESSION): the test emits and ends it. */
  session: SimSession;
  bridge: Bridge;
  /** Traces requests the front received so far. */
  requests(): number;
  /** Changes what the front answers from now on. */
  answer(a: TracesAnswer): void;
  lines: LogLine[];
  /** Distinct spans the receiver holds. */
  spansReceived(): number;
  close(): Promise<void>;
}

export const text = (status: number, headers?: Record<string, string>): FrontAnswer => ({
  status,
  contentType: 'text/plain',
  body: `refused by the front (${status})`,
  ...(headers ? { headers } : {}),
});

/** The bridge's part: a harness, the session, a bridge whose log is kept, spans to `env`'s endpoint. */
async function bridgeWith(
  env: Record<string, string>,
  traces: Record<string, unknown>,
  raw: Record<string, unknown>,
  h: Harness,
): Promise<{ session: SimSession; bridge: Bridge; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as LogLine);
      cb();
    },
  });
  const session = h.sim.createSession(SESSION);
  const bridge = await startBridge(
    h.config({ ...FAST, traces: { enabled: true, ...traces }, ...raw }, { BRIDGE_SESSIONS: SESSION, ...env }),
    pino({ level: 'info' }, sink),
  );
  return { session, bridge, lines };
}

/** `traces`: the `traces:` section beside `enabled`; `raw`: more sections over FAST. */
export async function tracesRefusal(
  first: TracesAnswer,
  traces: Record<string, unknown> = {},
  raw: Record<string, unknown> = {},
): Promise<TracesRefusal> {
  const h = await harness();
  let answer = first;
  let count = 0;
  let front: Server | undefined;
  const f = await collectorFront(h.receiver.url, (n, _body, forward) => {
    count++;
    return answer(n) ?? forward();
  });
  front = f.server;
  const { session, bridge, lines } = await bridgeWith(
    { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${f.url}/v1/traces` },
    traces,
    raw,
    h,
  );
  return {
    h,
    session,
    bridge,
    requests: () => count,
    answer: (a) => (answer = a),
    lines,
    spansReceived: () => new Set(h.receiver.spans.map((s) => s.spanId)).size,
    async close() {
      await bridge.shutdown(Date.now());
      await h.close();
      front?.closeAllConnections();
      await new Promise<void>((r) => (front ? front.close(() => r()) : r()));
      front = undefined;
    },
  };
}

/** As tracesRefusal, the spans over OTLP/gRPC to a TraceService the test steers; records over HTTP. */
export async function grpcTracesRefusal(
  first: GrpcTracesAnswer,
  traces: Record<string, unknown> = {},
): Promise<Omit<TracesRefusal, 'answer'> & { answer(a: GrpcTracesAnswer): void }> {
  const h = await harness();
  const front = await grpcTracesFront(first);
  const { session, bridge, lines } = await bridgeWith(
    { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: front.url, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
    traces,
    {},
    h,
  );
  return {
    h,
    session,
    bridge,
    requests: () => front.requests(),
    answer: (a) => front.answer(a),
    lines,
    spansReceived: () => new Set(front.spans.map((s) => s.spanId)).size,
    async close() {
      await bridge.shutdown(Date.now());
      await h.close();
      front.close();
    },
  };
}
