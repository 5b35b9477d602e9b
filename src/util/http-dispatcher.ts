// The undici dispatcher both HTTP clients use (session service and collector): the standard proxy
// variables HTTPS_PROXY / HTTP_PROXY / NO_PROXY (upper or lower case) are honoured, and the peer's
// TLS material (a private CA, a client certificate) applies to direct connections and to
// connections tunnelled through a proxy alike.
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';

export interface TlsFiles {
  /** PEM of the CA(s) that sign the peer's certificate, replacing the system roots. */
  ca?: string;
  /** PEM client certificate and key (mutual TLS). */
  cert?: string;
  key?: string;
}

export interface DispatcherOptions {
  tls: TlsFiles;
  connectTimeoutMs: number;
  connections?: number;
  headersTimeout?: number;
  bodyTimeout?: number;
  keepAliveTimeout?: number;
}

export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
}

export function createDispatcher(o: DispatcherOptions): Dispatcher {
  const connect = { timeout: o.connectTimeoutMs, ...o.tls };
  const base = {
    connect,
    ...(o.connections !== undefined ? { connections: o.connections } : {}),
    ...(o.headersTimeout !== undefined ? { headersTimeout: o.headersTimeout } : {}),
    ...(o.bodyTimeout !== undefined ? { bodyTimeout: o.bodyTimeout } : {}),
    keepAliveTimeout: o.keepAliveTimeout ?? 30_000,
  };
  if (!proxyConfigured()) return new Agent(base);
  // Through a proxy, the peer's TLS is the tunnelled connection's (requestTls).
  return new EnvHttpProxyAgent({ ...base, requestTls: { ...o.tls } });
}
