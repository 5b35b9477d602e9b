// Which proxy, if any, a request to a URL goes through, from the standard variables: HTTPS_PROXY for
// https:// URLs (HTTP_PROXY when it is not set), HTTP_PROXY for http:// URLs, each also read in
// lower case (the lower-case one wins when both are set, as curl and undici read them), unless
// NO_PROXY names the host. A pure function of the URL and the environment, so every rule has a row
// in a table-driven test (test/unit/util/proxy-env.test.ts).
//
// NO_PROXY: entries separated by commas or spaces, matched case-insensitively against the URL's host:
//   *                   every host (no proxy at all)
//   example.com         example.com and every host under it (api.example.com), not badexample.com
//   .example.com, *.example.com   the same (a leading dot or *. is only a spelling of "and below")
//   example.com:8443    the same hosts, on that port only (the URL's port, or 80/443 by scheme)
//   10.0.0.5, [::1], ::1, [::1]:8080   addresses, compared as written
//   10.0.0.0/8, fd00::/8, [fd00::]/8   every address in the range (curl 7.86+ and Go read them so);
//                       only a URL written with an address matches: names are not resolved
// A trailing dot (the absolute form of a name, `example.com.`) is dropped from entries and hosts
// alike, so either spelling matches the other.
import { BlockList, isIP } from 'node:net';

const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 };

type NoProxyEntry =
  | {
      host: string;
      /** 0: any port. */
      port: number;
    }
  | { range: BlockList };

/** The proxy for `url`, or undefined for a direct connection. Throws on a proxy URL it cannot use. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  const httpProxy = env.http_proxy ?? env.HTTP_PROXY;
  const chosen = url.protocol === 'https:' ? (env.https_proxy ?? env.HTTPS_PROXY) || httpProxy : httpProxy;
  if (!chosen) return undefined;
  if (bypassesProxy(url, env.no_proxy ?? env.NO_PROXY ?? '')) return undefined;
  return proxyUrl(chosen, 'HTTPS_PROXY / HTTP_PROXY');
}

/**
 * The proxy variables a request would read (the lower-case name when it is set), each checked as a
 * request would use it: the first problem, with the variable it is in, or undefined. For the
 * configuration to refuse at load what would otherwise fail every request.
 */
export function proxyVariableProblem(env: NodeJS.ProcessEnv): { variable: string; problem: string } | undefined {
  for (const names of [
    ['http_proxy', 'HTTP_PROXY'],
    ['https_proxy', 'HTTPS_PROXY'],
  ] as const) {
    const variable = names.find((n) => env[n] !== undefined);
    const value = variable === undefined ? undefined : env[variable];
    if (variable === undefined || !value) continue;
    try {
      proxyUrl(value, variable);
    } catch (err) {
      return { variable, problem: (err as Error).message };
    }
  }
  return undefined;
}

/** Proxy credentials as sent (Proxy-Authorization: Basic): the URL's user-info, percent-decoded. */
export function proxyCredentials(proxy: URL): string | undefined {
  if (proxy.username === '' && proxy.password === '') return undefined;
  return `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
}

/** Whether NO_PROXY (its value) names the URL's host (and port). */
export function bypassesProxy(url: URL, noProxy: string): boolean {
  const entries = parseNoProxy(noProxy);
  if (entries === 'all') return true;
  const host = withoutFinalDot(bare(url.hostname.toLowerCase()));
  const port = Number(url.port) || DEFAULT_PORT[url.protocol] || 0;
  const family = isIP(host);
  return entries.some((e) => {
    if ('range' in e) return family !== 0 && e.range.check(host, family === 4 ? 'ipv4' : 'ipv6');
    return (e.port === 0 || e.port === port) && (host === e.host || host.endsWith(`.${e.host}`));
  });
}

function parseNoProxy(value: string): NoProxyEntry[] | 'all' {
  const out: NoProxyEntry[] = [];
  for (const raw of value.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return 'all';
    const parsed = parseEntry(entry);
    if (parsed) out.push(parsed);
  }
  return out;
}

/** An entry; undefined for a range that is not one (`10.0.0.0/33`), which matches nothing. */
function parseEntry(entry: string): NoProxyEntry | undefined {
  const cidr = /^\[?([0-9a-f:.]+)\]?\/(\d{1,3})$/.exec(entry);
  if (cidr) return parseRange(cidr[1]!, Number(cidr[2]));
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (v6) return { host: v6[1]!, port: Number(v6[2] ?? 0) };
  // More than one colon and no brackets: an IPv6 address, which cannot carry a port.
  if (entry.indexOf(':') !== entry.lastIndexOf(':')) return { host: entry, port: 0 };
  const withPort = /^(.+):(\d+)$/.exec(entry);
  const host = withoutFinalDot((withPort ? withPort[1]! : entry).replace(/^\*?\./, ''));
  return { host, port: withPort ? Number(withPort[2]) : 0 };
}

function parseRange(address: string, prefix: number): NoProxyEntry | undefined {
  const family = isIP(address);
  if (family === 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
  const range = new BlockList();
  range.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return { range };
}

const withoutFinalDot = (host: string): string => (host.endsWith('.') ? host.slice(0, -1) : host);

/** An IPv6 host without the brackets a URL writes around it. */
const bare = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/**
 * The proxy variable's value as a URL; `host:port` without a scheme means http://, as curl reads it.
 * The value is never quoted in an error: it may carry the proxy's credentials.
 */
function proxyUrl(value: string, variable: string): URL {
  const written = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(written);
  } catch {
    throw new Error(`${variable} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(
      `proxy ${url.protocol}//${url.host}: only http:// and https:// proxies (HTTP CONNECT) are supported`,
    );
  }
  if (url.hostname === '') throw new Error(`${variable} names no proxy host`);
  try {
    proxyCredentials(url);
  } catch {
    // A raw % (`50%off`): the URL parser keeps it, the decoding of the credentials cannot.
    throw new Error(
      `the credentials in ${variable} are not valid percent-encoding: write a % in the user name or password as %25 (and @ : / as %40 %3A %2F)`,
    );
  }
  return url;
}
