// The OTLP logs receiver as a process: `browser-telemetry-bridge receive …`, or directly:
//   npx tsx src/devkit/receiver/main.ts --port 4318 [--host 127.0.0.1] [--grpc [--grpc-port 4317]]
// then point the bridge at it (OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318, or with
// OTEL_EXPORTER_OTLP_PROTOCOL=grpc at http://127.0.0.1:4317). OTLP/HTTP always listens, as a
// Collector's otlp receiver does on 4318; --grpc adds OTLP/gRPC on its own port (4317 by default).
// Prints one JSON line per received record on stdout (status lines go to stderr, so stdout stays
// machine-readable); SIGTERM / SIGINT close it and exit 0.
import { parseArgs } from 'node:util';
import { setLogVerbosity } from '@grpc/grpc-js';
import { recordToJsonLine } from './record-json.js';
import { startReceiver } from './server.js';
import { runIfEntryPoint } from '../../util/entry-point.js';
import { listenProblem } from '../../util/listen-problem.js';

export const HELP = `Usage: browser-telemetry-bridge receive [--port 4318] [--host 127.0.0.1] [--grpc] [--grpc-port 4317]

Runs a local OTLP logs receiver (OTLP/HTTP with protobuf and JSON; with --grpc also OTLP/gRPC;
gzip either way) and prints every record it decodes as one JSON line on stdout; status lines go
to stderr. Point run or demo at it to see what the bridge exports, without a collector.

Options:
      --port PORT        OTLP/HTTP listen port (default 4318; 0: any free port)
      --host HOST        listen address (default 127.0.0.1)
      --grpc             also accept OTLP/gRPC (plaintext), on --grpc-port
      --grpc-port PORT   OTLP/gRPC listen port (default 4317; 0: any free port); implies --grpc
  -h, --help             show this help

Examples:
  browser-telemetry-bridge receive --port 4318 | jq -c '{event: .eventName, seq: .attributes["browser.telemetry.seq"]}'
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 browser-telemetry-bridge run
  browser-telemetry-bridge receive --grpc
  OTEL_EXPORTER_OTLP_PROTOCOL=grpc OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317 browser-telemetry-bridge run`;

const USAGE = 'usage: receive [--port 4318] [--host 127.0.0.1] [--grpc] [--grpc-port 4317]; --help for more';

/** Runs until SIGTERM/SIGINT; resolves to the exit code (2 for bad options). */
export async function main(argv: string[]): Promise<number> {
  let port: number;
  let host: string;
  let grpcPort: number | undefined;
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '4318' },
        host: { type: 'string', default: '127.0.0.1' },
        grpc: { type: 'boolean' },
        'grpc-port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(HELP + '\n');
      return 0;
    }
    port = portOption(values.port, '--port');
    host = values.host;
    if (values.grpc || values['grpc-port'] !== undefined)
      grpcPort = portOption(values['grpc-port'] ?? '4317', '--grpc-port');
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }

  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  // This process says itself why it cannot listen, in one line; grpc-js would add its own.
  setLogVerbosity(3); // LogVerbosity.NONE (the enum is not a named ESM export of grpc-js)
  try {
    receiver = await startReceiver({
      host,
      port,
      ...(grpcPort === undefined ? {} : { grpc: { port: grpcPort } }),
      // A by-hand session may run for hours: print, do not accumulate.
      retain: false,
      onRecord: (record) => process.stdout.write(`${recordToJsonLine(record)}\n`),
    });
  } catch (err) {
    // grpc-js reports a bind failure as "No address added out of total 1 resolved".
    const problem =
      grpcPort !== undefined && /No address added/.test((err as Error).message)
        ? listenProblem({ code: 'EADDRINUSE', message: (err as Error).message }, host, grpcPort, '--grpc-port')
        : listenProblem(err, host, port, '--port');
    process.stderr.write(`receive: ${problem}\n`);
    return 1;
  }
  process.stderr.write(`OTLP/HTTP logs receiver listening on ${receiver.logsUrl}\n`);
  if (receiver.grpcUrl) process.stderr.write(`OTLP/gRPC logs receiver listening on ${receiver.grpcUrl}\n`);

  return new Promise<number>((resolve) => {
    const shutdown = (signal: NodeJS.Signals): void => {
      process.stderr.write(`${signal}: closing\n`);
      receiver.close().then(
        () => resolve(0),
        (err: unknown) => {
          process.stderr.write(`close failed: ${(err as Error).message}\n`);
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', shutdown);
    process.once('SIGINT', shutdown);
  });
}

function portOption(text: string, name: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new Error(`${name}: not a port number: ${text}`);
  return port;
}

runIfEntryPoint(import.meta.url, main, 'receiver');
