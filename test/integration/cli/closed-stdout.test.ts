// `browser-telemetry-bridge check | head -3`: the reader leaves and the next write fails with EPIPE.
// That was an unhandled 'error' event and a stack trace on the terminal; now the command stops
// quietly with 141, the status of a process killed by SIGPIPE (src/cli/main.ts).
import { describe, expect, it } from 'vitest';
import { startCli } from './cli-process.js';

const env = {
  BROWSER_API_URL: 'http://127.0.0.1:9',
  BROWSER_API_KEY: 'k',
  BRIDGE_SESSIONS: 'a,b,c',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
  BRIDGE_STATE_DIR: '/nonexistent-dir-for-check/state',
};

describe('a command whose reader closed the pipe', () => {
  it.each([['validate'], ['check'], ['--help']])('%s: stops quietly with 141', async (...args) => {
    const cli = startCli(args, env);
    // The reading end closes before the first line is written.
    cli.child.stdout.destroy();
    const res = await cli.done;
    expect(res.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(res.code).toBe(141);
  });
});
