// BROWSER_API_URL as it arrives from an .env file or a YAML value: with a blank around it, or with a
// query or fragment. The URL parser forgave the blanks at validation, but the URLs built from the
// text did not: every request failed as ERR_INVALID_URL ("cannot reach"), forever. A query or a
// fragment swallowed the path appended to it (`http://h?x=1/browsers/…` asks for `/`). Real CLI
// processes against the simulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/devkit/simulator/index.js';
import { runCli } from './cli-process.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
  sim.createSession('u1').emit(3);
});
afterAll(async () => sim.close());

const env = (url: string): Record<string, string> => ({
  BROWSER_API_URL: url,
  BROWSER_API_KEY: 'sim-key',
  BRIDGE_SESSIONS: 'u1',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
  BRIDGE_STATE_DIR: '/nonexistent/state',
});

describe('the service URL as text', () => {
  it('blanks around it are trimmed: check reaches the service and the session', async () => {
    const res = await runCli(['check'], env(` ${sim.url}/ \t`));
    expect(res.stdout).toMatch(/✓ service /);
    expect(res.stdout).toMatch(/✓ session u1 /);
    expect(res.stdout).not.toContain('ERR_INVALID_URL');
  });

  it.each([`?api-version=2`, `/#frag`])('%s after it is one line naming the variable, exit 2', async (tail) => {
    const res = await runCli(['validate'], env(`${sim.url}${tail}`));
    expect(res).toMatchObject({
      code: 2,
      stderr:
        'invalid configuration: BROWSER_API_URL: must not have a query (?…) or fragment (#…): the API paths are appended to it\n',
    });
  });
});
