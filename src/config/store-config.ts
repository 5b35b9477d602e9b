// Which store the bridge keeps its state in. Without a URL: the embedded SQLite store in the state
// directory (one machine needs nothing else). A postgres:// URL (BRIDGE_STORE_URL or `store.url`)
// selects the shared PostgreSQL store, where several replicas follow one set of sessions. The
// password comes from BRIDGE_STORE_PASSWORD_FILE / `store.password_file`, the URL, or the standard
// PG* variables (PGPASSWORD, PGHOST, …), which the PostgreSQL client reads itself.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { ConfigError } from './errors.js';
import { CONFIG_FILE, keysOf } from './config-keys.js';
import { onlyKeys, optDurationMs, optString, section, type Raw } from './readers.js';

export type Env = Record<string, string | undefined>;

export type StoreConfig =
  | { kind: 'sqlite' }
  | {
      kind: 'postgres';
      url: string;
      password?: string;
      /** How long a replica's lease lasts without renewal; failover takes about this long plus a tick. */
      leaseMs: number;
    };

/** The replica's name: BRIDGE_REPLICA_ID, else host name + pid (unique per process on one host). */
export function replicaId(env: Env): { id: string; explicit: boolean } {
  const v = env.BRIDGE_REPLICA_ID?.trim();
  if (v) {
    if (!/^[A-Za-z0-9._~:-]{1,128}$/.test(v))
      throw new ConfigError(
        'BRIDGE_REPLICA_ID',
        'must be 1-128 characters of letters, digits, ".", "_", "~", ":" or "-"',
      );
    return { id: v, explicit: true };
  }
  return { id: `${hostname()}-${process.pid}`, explicit: false };
}

export function parseStoreConfig(raw: Raw, env: Env): StoreConfig {
  const st = section(raw, 'store', 'store');
  onlyKeys(st, keysOf(CONFIG_FILE.keys.store), 'store');
  // Trimmed as the other URLs are (readers.ts optUrl): a trailing blank became part of the database's
  // name (postgres://…/bridge%20), where a trailing line end was dropped by the URL parser.
  const [urlText, urlKey] = env.BRIDGE_STORE_URL
    ? [env.BRIDGE_STORE_URL.trim(), 'BRIDGE_STORE_URL']
    : [optString(st.url, 'store.url')?.trim(), 'store.url'];
  const leaseKey = env.BRIDGE_STORE_LEASE ? 'BRIDGE_STORE_LEASE' : 'store.lease';
  const leaseMs = optDurationMs(env.BRIDGE_STORE_LEASE || st.lease, leaseKey, 1000) ?? 10_000;
  if (!urlText) return { kind: 'sqlite' };
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    throw new ConfigError(urlKey, 'must be a postgres:// URL, e.g. postgres://bridge@db:5432/bridge');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(
      urlKey,
      `must be a postgres:// URL (got a ${url.protocol.replace(/:$/, '')}: URL); without it the embedded SQLite store is used`,
    );
  }
  const fileKey = env.BRIDGE_STORE_PASSWORD_FILE ? 'BRIDGE_STORE_PASSWORD_FILE' : 'store.password_file';
  const passwordFile =
    optString(env.BRIDGE_STORE_PASSWORD_FILE, 'BRIDGE_STORE_PASSWORD_FILE') ??
    optString(st.password_file, 'store.password_file');
  let password: string | undefined;
  if (passwordFile) {
    try {
      password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new ConfigError(
        fileKey,
        code === 'ENOENT'
          ? `${passwordFile} does not exist`
          : `cannot read ${passwordFile}: ${code ?? (err as Error).message}`,
      );
    }
  }
  return { kind: 'postgres', url: urlText, ...(password !== undefined ? { password } : {}), leaseMs };
}
