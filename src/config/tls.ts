// TLS material for the two HTTPS peers: the collector (the standard OTEL_EXPORTER_OTLP_CERTIFICATE,
// _CLIENT_CERTIFICATE, _CLIENT_KEY variables, signal-specific _LOGS_ ones first, then the file's
// exporter.tls) and the session service (BROWSER_API_CA_FILE / upstream.ca_file). Files are read
// once, here, so an unreadable one is a configuration error naming its key rather than a failure
// at the first request.
import { readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';
import { optString, type Raw } from './readers.js';
import type { TlsFiles } from '../util/peer-connection.js';

export type { TlsFiles } from '../util/peer-connection.js';

type Env = Record<string, string | undefined>;

function readPem(path: string | undefined, key: string): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(key, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** The first set source among environment variables (in order) and a file key, with the key that named it. */
function pick(env: Env, names: string[], raw: Raw, fileKey: string, prefix: string): [string | undefined, string] {
  for (const name of names) {
    const v = optString(env[name], name);
    if (v !== undefined) return [v, name];
  }
  return [optString(raw[fileKey], `${prefix}.${fileKey}`), `${prefix}.${fileKey}`];
}

export function exporterTls(env: Env, raw: Raw): TlsFiles {
  const [caPath, caKey] = pick(
    env,
    ['OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE', 'OTEL_EXPORTER_OTLP_CERTIFICATE'],
    raw,
    'ca_file',
    'exporter.tls',
  );
  const [certPath, certKey] = pick(
    env,
    ['OTEL_EXPORTER_OTLP_LOGS_CLIENT_CERTIFICATE', 'OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE'],
    raw,
    'cert_file',
    'exporter.tls',
  );
  const [keyPath, keyKey] = pick(
    env,
    ['OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY', 'OTEL_EXPORTER_OTLP_CLIENT_KEY'],
    raw,
    'key_file',
    'exporter.tls',
  );
  if ((certPath === undefined) !== (keyPath === undefined)) {
    throw new ConfigError(
      certPath === undefined ? certKey : keyKey,
      'a client certificate needs its key and a key its certificate (both, or neither)',
    );
  }
  return compact({ ca: readPem(caPath, caKey), cert: readPem(certPath, certKey), key: readPem(keyPath, keyKey) });
}

export function upstreamTls(env: Env, raw: Raw): TlsFiles {
  const [caPath, caKey] = pick(env, ['BROWSER_API_CA_FILE'], raw, 'ca_file', 'upstream');
  return compact({ ca: readPem(caPath, caKey) });
}

function compact(t: TlsFiles): TlsFiles {
  const out: TlsFiles = {};
  if (t.ca !== undefined) out.ca = t.ca;
  if (t.cert !== undefined) out.cert = t.cert;
  if (t.key !== undefined) out.key = t.key;
  return out;
}
