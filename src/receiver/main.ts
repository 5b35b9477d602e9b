// Standalone OTLP/HTTP logs receiver for trying the bridge by hand:
//   npx tsx src/receiver/main.ts --port 4318 [--host 127.0.0.1]
// then point the bridge at it (OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318). Prints one JSON
// line per received record on stdout (status lines go to stderr, so stdout stays machine-readable);
// SIGTERM / SIGINT close it and exit 0.
import { parseArgs } from 'node:util';
import { recordToJsonLine } from './record-json.js';
import { startReceiver } from './server.js';

const USAGE = 'usage: receiver [--port 4318] [--host 127.0.0.1]';

async function main(): Promise<void> {
  let port: number;
  let host: string;
  try {
    const { values } = parseArgs({
      options: { port: { type: 'string', default: '4318' }, host: { type: 'string', default: '127.0.0.1' } },
      strict: true,
    });
    port = Number(values.port);
    host = values.host;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port number: ${values.port}`);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }

  const receiver = await startReceiver({
    host,
    port,
    // A by-hand session may run for hours: print, do not accumulate.
    retain: false,
    onRecord: (record) => process.stdout.write(`${recordToJsonLine(record)}\n`),
  });
  process.stderr.write(`OTLP/HTTP logs receiver listening on ${receiver.logsUrl}\n`);

  const shutdown = (signal: NodeJS.Signals): void => {
    process.stderr.write(`${signal}: closing\n`);
    receiver.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`close failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((err: unknown) => {
  process.stderr.write(`receiver failed: ${(err as Error).message}\n`);
  process.exit(1);
});
