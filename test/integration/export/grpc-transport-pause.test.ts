// The OTLP/gRPC transport in a process that could not run for longer than its call's deadline
// (SIGSTOP, a frozen VM, a loop blocked): when it runs again its timers are due before the answer
// waiting in its socket is read (libuv runs timers before it polls the sockets). The collector
// answered in time: the call must take the answer, not end as DEADLINE_EXCEEDED and have its records
// sent again, as the HTTP transport does (test/integration/util/http-client-pause.test.ts). The
// collector is a child process, so it answers while this process is blocked.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, expect, it } from 'vitest';
import { createGrpcTransport, LOGS_EXPORT_METHOD } from '../../../src/export/grpc-transport.js';
import type { OtlpTransport } from '../../../src/export/otlp-transport.js';

// A LogsService that says 'got' on each call and answers it `delay` ms later (an empty response).
const COLLECTOR = `
const grpc = require('@grpc/grpc-js');
const delay = Number(process.argv[1]);
const server = new grpc.Server();
const raw = { serialize: (b) => b, deserialize: (b) => b };
server.addService({ Export: { path: ${JSON.stringify(LOGS_EXPORT_METHOD)}, requestStream: false, responseStream: false,
  requestSerialize: raw.serialize, requestDeserialize: raw.deserialize,
  responseSerialize: raw.serialize, responseDeserialize: raw.deserialize } }, {
  Export: (call, done) => {
    process.stdout.write('got\\n');
    setTimeout(() => done(null, Buffer.alloc(0)), delay);
  },
});
server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  process.stdout.write(port + '\\n');
});
`;

let collector: ChildProcess | undefined;
let transport: OtlpTransport | undefined;
afterEach(async () => {
  await transport?.close();
  collector?.kill('SIGKILL');
});

/** The collector's URL, and a function that resolves on each line it writes. */
async function startCollector(delayMs: number): Promise<{ url: string; next: () => Promise<string> }> {
  collector = spawn(process.execPath, ['-e', COLLECTOR, String(delayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: collector.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => String((await lines.next()).value);
  return { url: `http://127.0.0.1:${await next()}`, next };
}

/** This thread stops for `ms`: nothing of it runs, its timers come due, the collector goes on. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

it('takes an answer that arrived while the process was paused past the call deadline', async () => {
  const { url, next } = await startCollector(50);
  transport = createGrpcTransport({ url, headers: {}, compression: 'none', timeoutMs: 300, userAgent: 'x' });
  const answer = transport.send([Buffer.alloc(0)], '');
  expect(await next()).toBe('got');
  pause(1500);
  expect(await answer).toMatchObject({ kind: 'success' });
});

it('a collector that does not answer still ends the call at its deadline', async () => {
  const { url, next } = await startCollector(60_000);
  transport = createGrpcTransport({ url, headers: {}, compression: 'none', timeoutMs: 300, userAgent: 'x' });
  const answer = transport.send([Buffer.alloc(0)], '');
  expect(await next()).toBe('got');
  expect(await answer).toMatchObject({ kind: 'retryable', grpcCode: 4 });
});
