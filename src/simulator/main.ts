// Standalone simulator process, for tests and tools that need the service in another process:
//   npx tsx src/simulator/main.ts --port 0 --sessions a,b,c --rate 100 --buffer 1000
// Prints one JSON line {"url": ...} on stdout once listening; drive it further through /_sim/.
// SIGTERM / SIGINT close the server and exit 0.
import { parseArgs } from 'node:util';
import { startSimulator } from './simulator.js';

function fail(message: string): never {
  process.stderr.write(`simulator: ${message}\n`);
  process.exit(2);
}

function num(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) fail(`--${name} must be a non-negative number`);
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        sessions: { type: 'string' },
        rate: { type: 'string' },
        buffer: { type: 'string' },
        'keepalive-ms': { type: 'string' },
        seed: { type: 'string' },
        'api-key': { type: 'string', multiple: true },
        pool: { type: 'string' },
      },
      strict: true,
    }));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const port = num('port', values.port);
  const bufferSize = num('buffer', values.buffer);
  const keepaliveMs = num('keepalive-ms', values['keepalive-ms']);
  const seed = num('seed', values.seed);
  const rate = num('rate', values.rate) ?? 0;
  const apiKeys = values['api-key']?.flatMap((k) => k.split(',')).filter(Boolean);

  const sim = await startSimulator({
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(bufferSize !== undefined ? { bufferSize } : {}),
    ...(keepaliveMs !== undefined ? { keepaliveMs } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(apiKeys && apiKeys.length > 0 ? { apiKeys } : {}),
  });
  for (const id of (values.sessions ?? '').split(',').filter(Boolean)) {
    const s = sim.createSession(id, values.pool !== undefined ? { pool: values.pool } : {});
    if (rate > 0) s.produce(rate);
  }

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(JSON.stringify({ url: sim.url }) + '\n');
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
