// Which proxy a URL goes through: the variables (upper and lower case, HTTPS falling back to HTTP)
// and NO_PROXY's entries, one row per rule.
import { describe, expect, it } from 'vitest';
import { bypassesProxy, proxyFor, proxyVariableProblem } from '../../../src/util/proxy-env.js';

describe('NO_PROXY', () => {
  it.each([
    // [NO_PROXY, URL, bypassed]
    ['', 'https://api.example.com', false],
    ['*', 'https://api.example.com', true],
    ['other.org, *', 'https://api.example.com', true],
    ['example.com', 'https://example.com', true],
    ['example.com', 'https://api.example.com', true],
    ['example.com', 'https://a.b.example.com/x', true],
    ['example.com', 'https://badexample.com', false],
    ['example.com', 'https://example.com.evil.org', false],
    ['.example.com', 'https://api.example.com', true],
    ['.example.com', 'https://example.com', true],
    ['*.example.com', 'https://api.example.com', true],
    ['EXAMPLE.com', 'https://Api.Example.COM', true],
    ['example.com:8443', 'https://api.example.com:8443', true],
    ['example.com:8443', 'https://api.example.com', false],
    ['example.com:443', 'https://api.example.com', true],
    ['example.com:80', 'http://api.example.com', true],
    ['example.com:80', 'https://api.example.com', false],
    ['a.org,example.com', 'https://example.com', true],
    ['a.org example.com', 'https://example.com', true],
    [' a.org ,, example.com ', 'https://example.com', true],
    ['a.org,b.org', 'https://example.com', false],
    ['127.0.0.1', 'http://127.0.0.1:4318', true],
    ['127.0.0.1:4318', 'http://127.0.0.1:4318', true],
    ['127.0.0.1:4317', 'http://127.0.0.1:4318', false],
    ['10.0.0.1', 'http://110.0.0.1', false],
    ['::1', 'http://[::1]:8080', true],
    ['[::1]', 'http://[::1]:8080', true],
    ['[::1]:8080', 'http://[::1]:8080', true],
    ['[::1]:9090', 'http://[::1]:8080', false],
    // Ranges (curl 7.86+, Go): only for URLs written with an address.
    ['10.0.0.0/8', 'http://10.1.2.3:4318', true],
    ['10.0.0.0/8', 'http://11.1.2.3:4318', false],
    ['192.168.1.0/24', 'https://192.168.1.254', true],
    ['192.168.1.0/24', 'https://192.168.2.1', false],
    ['0.0.0.0/0', 'https://203.0.113.9', true],
    ['10.0.0.0/8', 'http://ten.example.com', false],
    ['10.0.0.0/33', 'http://10.1.2.3', false],
    ['fd00::/8', 'http://[fd12::1]:4318', true],
    ['[fd00::]/8', 'http://[fd12::1]:4318', true],
    ['fd00::/8', 'http://[fe80::1]:4318', false],
    ['fd00::/8', 'http://10.1.2.3', false],
    ['::1/128', 'http://[::1]', true],
    // A trailing dot (the absolute form of a name) on either side.
    ['example.com.', 'https://api.example.com', true],
    ['example.com', 'https://api.example.com.', true],
    ['example.com.', 'https://example.com.', true],
    ['.example.com.', 'https://example.com', true],
    ['example.com.:8443', 'https://example.com.:8443', true],
    ['example.com.', 'https://badexample.com.', false],
  ] as const)('NO_PROXY=%j, %s → bypassed %s', (noProxy, url, bypassed) => {
    expect(bypassesProxy(new URL(url), noProxy)).toBe(bypassed);
  });
});

describe('the variables', () => {
  const P = 'http://proxy.local:3128';
  const Q = 'http://other.local:8080';
  it.each([
    // [environment, URL, proxy or undefined]
    [{}, 'https://api.example.com', undefined],
    [{ HTTPS_PROXY: P }, 'https://api.example.com', P],
    [{ https_proxy: P }, 'https://api.example.com', P],
    [{ HTTPS_PROXY: P }, 'http://api.example.com', undefined],
    [{ HTTP_PROXY: P }, 'http://api.example.com', P],
    [{ http_proxy: P }, 'http://api.example.com', P],
    // No HTTPS_PROXY: https:// goes through HTTP_PROXY, as undici's EnvHttpProxyAgent did.
    [{ HTTP_PROXY: P }, 'https://api.example.com', P],
    [{ HTTP_PROXY: Q, HTTPS_PROXY: P }, 'https://api.example.com', P],
    [{ HTTP_PROXY: Q, HTTPS_PROXY: P }, 'http://api.example.com', Q],
    // Lower case wins when both are set.
    [{ https_proxy: P, HTTPS_PROXY: Q }, 'https://api.example.com', P],
    [{ no_proxy: 'example.com', NO_PROXY: 'other.org', HTTPS_PROXY: P }, 'https://api.example.com', undefined],
    [{ NO_PROXY: 'example.com', HTTPS_PROXY: P }, 'https://api.example.com', undefined],
    [{ NO_PROXY: 'other.org', HTTPS_PROXY: P }, 'https://api.example.com', P],
    // host:port without a scheme is an http:// proxy.
    [{ HTTPS_PROXY: 'proxy.local:3128' }, 'https://api.example.com', P],
    [{ HTTPS_PROXY: 'https://proxy.local' }, 'https://api.example.com', 'https://proxy.local'],
  ] as const)('%j, %s → %s', (env, url, proxy) => {
    const got = proxyFor(new URL(url), env);
    expect(got === undefined ? undefined : got.origin).toBe(proxy === undefined ? undefined : new URL(proxy).origin);
  });

  it('credentials in the proxy URL are kept for the tunnel', () => {
    const got = proxyFor(new URL('https://api.example.com'), { HTTPS_PROXY: 'http://me:p%40ss@proxy.local:3128' });
    expect([got?.username, decodeURIComponent(got?.password ?? '')]).toEqual(['me', 'p@ss']);
  });

  it('a SOCKS proxy is refused by name, and a value that is no URL without quoting it (it may hold a password)', () => {
    expect(() => proxyFor(new URL('https://a.example'), { HTTPS_PROXY: 'socks5://proxy.local:1080' })).toThrow(
      /socks5:\/\/proxy\.local:1080: only http:\/\/ and https:\/\/ proxies/,
    );
    let message = '';
    try {
      proxyFor(new URL('https://a.example'), { HTTPS_PROXY: 'http://me:secret@[bad' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/not a URL/);
    expect(message).not.toContain('secret');
  });
});

describe('the variables checked at load', () => {
  it.each([
    // [environment, variable named or undefined, message]
    [{}, undefined, undefined],
    [{ HTTPS_PROXY: 'http://user:50%25off@proxy:3128' }, undefined, undefined],
    [{ HTTPS_PROXY: 'proxy:3128' }, undefined, undefined],
    [{ HTTPS_PROXY: 'http://user:50%off@proxy:3128' }, 'HTTPS_PROXY', /percent-encoding/],
    [{ http_proxy: 'http://us%er@proxy:3128' }, 'http_proxy', /percent-encoding/],
    [{ HTTP_PROXY: 'socks5://proxy:1080' }, 'HTTP_PROXY', /only http:\/\/ and https:\/\//],
    [{ HTTPS_PROXY: 'http://' }, 'HTTPS_PROXY', /not a URL|no proxy host/],
    // The lower-case variable is the one a request reads; the other is not checked.
    [{ https_proxy: 'http://proxy:3128', HTTPS_PROXY: 'http://u:%@proxy:3128' }, undefined, undefined],
    // An empty lower-case variable shadows the upper-case one, as for requests.
    [{ http_proxy: '', HTTP_PROXY: 'http://u:%@proxy:3128' }, undefined, undefined],
  ] as const)('%j → %s', (env, variable, message) => {
    const problem = proxyVariableProblem(env);
    expect(problem?.variable).toBe(variable);
    if (message) expect(problem?.problem).toMatch(message);
    // The credentials are never echoed.
    expect(problem?.problem ?? '').not.toMatch(/50%off|us%er/);
  });
});
