// TLS material for the two HTTPS peers: the collector (the standard OTEL_EXPORTER_OTLP_CERTIFICATE,
// _CLIENT_CERTIFICATE, _CLIENT_KEY variables, the signal's own _LOGS_ or _TRACES_ ones first, then the file's
// exporter.tls) and the session service (BROWSER_API_CA_FILE / upstream.ca_file). Files are read
// once, here, so an unreadable one is a configuration error naming its key rather than a failure
// at the first request.
import { readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';
import { optString, type Raw } from './readers.js';
import type { TlsFiles } from '../util/peer-connection.js';

export type { TlsFiles } from '../util/peer-connection.js';

// node:crypto and node:tls are taken only when a PEM file is configured: a configuration without TLS
// files (the sidecar's) does not load them (about 9 MiB of RSS on Node 24, util/http-client.ts).
const parseCertificate = (pem: string): unknown => new (process.getBuiltinModule('node:crypto').X509Certificate)(pem);
const createSecureContext = (o: import('node:tls').SecureContextOptions): unknown =>
  process.getBuiltinModule('node:tls').createSecureContext(o);

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

/**
 * The exporter's TLS files of one signal: `signalVar` names its own variable (…_TRACES_… for spans,
 * …_LOGS_… for records; otlp-endpoint.ts signalVar), which wins over the generic one.
 */
export function exporterTls(env: Env, raw: Raw, signalVar: (name: string) => string): TlsFiles {
  const [caPath, caKey] = pick(
    env,
    [signalVar('CERTIFICATE'), 'OTEL_EXPORTER_OTLP_CERTIFICATE'],
    raw,
    'ca_file',
    'exporter.tls',
  );
  const [certPath, certKey] = pick(
    env,
    [signalVar('CLIENT_CERTIFICATE'), 'OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE'],
    raw,
    'cert_file',
    'exporter.tls',
  );
  const [keyPath, keyKey] = pick(
    env,
    [signalVar('CLIENT_KEY'), 'OTEL_EXPORTER_OTLP_CLIENT_KEY'],
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
  const files = compact({
    ca: readPem(caPath, caKey),
    cert: readPem(certPath, certKey),
    key: readPem(keyPath, keyKey),
  });
  checkCa(files.ca, caPath, caKey);
  if (files.cert !== undefined && files.key !== undefined)
    checkClientPair(files.cert, files.key, [certPath!, certKey], [keyPath!, keyKey]);
  return files;
}

export function upstreamTls(env: Env, raw: Raw): TlsFiles {
  const [caPath, caKey] = pick(env, ['BROWSER_API_CA_FILE'], raw, 'ca_file', 'upstream');
  const files = compact({ ca: readPem(caPath, caKey) });
  checkCa(files.ca, caPath, caKey);
  return files;
}

// The material is tried here as a connection would use it. A client key that is not PEM made the
// TLS step of every connection throw (and, before that was caught, killed the process); a CA file
// without a certificate in it is taken silently by node:tls and then trusts nothing.

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

function checkCa(pem: string | undefined, path: string | undefined, key: string): void {
  if (pem === undefined) return;
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) throw new ConfigError(key, `${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  for (const block of blocks) {
    try {
      parseCertificate(block);
    } catch (err) {
      throw new ConfigError(key, `a certificate in ${path} cannot be read (${openSslProblem(err)})`);
    }
  }
}

function checkClientPair(cert: string, key: string, [certPath, certKey]: string[], [keyPath, keyKey]: string[]): void {
  try {
    createSecureContext({ cert });
  } catch (err) {
    throw new ConfigError(certKey!, `${certPath} is not a PEM certificate (${openSslProblem(err)})`);
  }
  try {
    createSecureContext({ key });
  } catch (err) {
    throw new ConfigError(keyKey!, `${keyPath} is not an unencrypted PEM private key (${openSslProblem(err)})`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new ConfigError(
      keyKey!,
      `${keyPath} is not the key of the certificate in ${certPath} (${openSslProblem(err)})`,
    );
  }
}

/** OpenSSL's words without its error-queue codes: `error:1E08010C:DECODER routines::unsupported` → `DECODER routines: unsupported`. */
function openSslProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^error:[0-9A-F]+:/, '').replace(/::/, ': ');
}

function compact(t: TlsFiles): TlsFiles {
  const out: TlsFiles = {};
  if (t.ca !== undefined) out.ca = t.ca;
  if (t.cert !== undefined) out.cert = t.cert;
  if (t.key !== undefined) out.key = t.key;
  return out;
}
