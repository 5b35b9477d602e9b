// A control token with a line end: a Secret made from a file that ends in a newline, given to the
// daemon and to `top` as BRIDGE_CONTROL_TOKEN. No client can present such a token (a header value
// loses its surrounding whitespace), so the daemon answered 401 to `curl -H "authorization: Bearer
// tok"` forever, and `top` could not send it at all. Both sides trim it now; a token that is only
// whitespace, or has a line break inside, is a configuration error. Real sockets and a real `top`.
import { describe, expect, it } from 'vitest';
import { buildConfig } from '../../../src/config/load-config.js';
import { runCli } from '../cli/cli-process.js';
import { startInProcess, worldPerTest } from './bridge-harness.js';

const t = worldPerTest();

describe('a control token with a line end', () => {
  it('is trimmed: the token without it is accepted, by a plain client and by top', async () => {
    t.running = await startInProcess(t.world, {}, { BRIDGE_CONTROL_TOKEN: 'tok-123\n' });
    const res = await fetch(`${t.running.url}/v1/sessions`, { headers: { authorization: 'Bearer tok-123' } });
    expect(res.status).toBe(200);
    const top = await runCli(['top', '--once', '--url', t.running.url], { BRIDGE_CONTROL_TOKEN: 'tok-123\r\n' });
    expect(top.stderr).toBe('');
    expect(top.code).toBe(0);
  });

  it('only whitespace, or a line break inside: one line naming the variable, the token not shown', () => {
    const env = { BROWSER_API_URL: 'http://svc.test', BROWSER_API_KEY: 'k' };
    expect(() => buildConfig({}, { ...env, BRIDGE_CONTROL_TOKEN: ' \n' })).toThrow(
      'BRIDGE_CONTROL_TOKEN: is empty or only whitespace: give a token, or leave it unset',
    );
    expect(() => buildConfig({ control_token: 'tok\nmore' }, env)).toThrow(
      'control_token: the token contains a line break (CR or LF), which no HTTP header may carry (the token is not shown)',
    );
  });
});
