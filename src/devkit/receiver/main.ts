// The OTLP/HTTP logs receiver as a process: `browser-telemetry-bridge receive …`, or directly:
//   npx tsx src/devkit/receiver/main.ts --port 4318 [--host 127.0.0.1]
// then point the bridge at it (OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318). Prints one JSON
// line per received record on stdout (status lines go to stderr, so stdout stays machine-readable);
// SIGTERM / SIGINT close it and exit 0.
import { parseArgs } from 'node:util';
import { recordToJsonLine } from './record-json.js';
import { startReceiver } from './server.js';
import { runIfEntryPoint } from '../../util/entry-point.js';

export const HELP = `Usage: browser-telemetry-bridge receive [--port 4318] [--host 127.0.0.1]

Runs a local OTLP/HTTP logs receiver (protobuf and JSON, gzip) and prints every record it decodes
as one JSON line on stdout; status lines go to stderr. Point run or demo at it to see what the
bridge exports, without a collector.

Options:
      --port PORT   listen port (default 4318; 0: any free port)
      --host HOST   listen address (default 127.0.0.1)
  -h, --help        show this help

Example:
  browser-telemetry-bridge receive --port 4318 | jq -c '{event: .eventName, seq: .attributes["browser.telemetry.seq"]}'
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 browser-telemetry-bridge run`;

/** Runs until SIGTERM/SIGINT; resolves to the exit code (2 for bad options). */
export async function main(argv: string[]): Promise<number> {
  let port: number;
  let host: string;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { port: { type: 'string', default: '4318' }, host: { type: 'string', default: '127.0.0.1' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(HELP + '\n');
      return 0;
    }
    port = Number(values.port);
    host = values.host;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port number: ${values.port}`);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\nusage: receiver [--port 4318] [--host 127.0.0.1]; --help for more\n`);
    return 2;
  }

  const receiver = await startReceiver({
    host,
    port,
    // A by-hand session may run for hours: print, do not accumulate.
    retain: false,
    onRecord: (record) => process.stdout.write(`${recordToJsonLine(record)}\n`),
  });
  process.stderr.write(`OTLP/HTTP logs receiver listening on ${receiver.logsUrl}\n`);

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

runIfEntryPoint(import.meta.url, main, 'receiver');
