// Certificates for TLS tests, made by openssl in a temporary directory: a private CA, a server
// certificate for 127.0.0.1 and localhost (and any other names a test asks for), and a client
// certificate (CN "bridge") for mutual TLS.
import { execFileSync } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import type { ServerOptions } from 'node:https';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  dir: string;
  /** Paths, for the OTEL_EXPORTER_OTLP_* variables. */
  paths: { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };
  /** The PEM texts, for servers started in the test. */
  pem: { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };
  remove(): void;
}

export interface TestCertOptions {
  /** DNS names the server certificate holds besides localhost (a name only a test's proxy resolves). */
  serverNames?: string[];
}

export function makeTestCerts(opts: TestCertOptions = {}): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-certs-'));
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=bridge test CA',
  );
  const leaves = [
    [
      'server',
      '127.0.0.1',
      `subjectAltName=${['IP:127.0.0.1', 'DNS:localhost', ...(opts.serverNames ?? []).map((n) => `DNS:${n}`)].join(',')}`,
    ],
    ['client', 'bridge', 'extendedKeyUsage=clientAuth'],
  ] as const;
  for (const [name, cn, ext] of leaves) signLeaf(dir, name, cn, ext);
  const p = (f: string): string => join(dir, f);
  const paths = {
    ca: p('ca.pem'),
    serverCert: p('server.pem'),
    serverKey: p('server.key'),
    clientCert: p('client.pem'),
    clientKey: p('client.key'),
  };
  return {
    dir,
    paths,
    pem: {
      ca: readFileSync(paths.ca, 'utf8'),
      serverCert: readFileSync(paths.serverCert, 'utf8'),
      serverKey: readFileSync(paths.serverKey, 'utf8'),
      clientCert: readFileSync(paths.clientCert, 'utf8'),
      clientKey: readFileSync(paths.clientKey, 'utf8'),
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A certificate and key for `cn` with the extension line `ext` (`subjectAltName=…`), signed by the
 * CA in `dir` (makeTestCerts's): `<name>.pem` and `<name>.key` there, returned as PEM.
 */
export function signLeaf(dir: string, name: string, cn: string, ext: string): { cert: string; key: string } {
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  writeFileSync(join(dir, `${name}.ext`), `${ext}\n`);
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
  ssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  );
  return { cert: readFileSync(join(dir, `${name}.pem`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
}

/**
 * Like signLeaf, but valid only in January 2020: an expired certificate (`openssl ca`, which alone
 * takes dates in the past).
 */
export function signExpiredLeaf(dir: string, name: string, cn: string, ext: string): { cert: string; key: string } {
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const db = join(dir, `${name}-ca`);
  mkdirSync(db, { recursive: true });
  writeFileSync(join(db, 'index.txt'), '');
  writeFileSync(join(db, 'serial'), '1000\n');
  writeFileSync(
    join(dir, `${name}-ca.cnf`),
    [
      '[ca]',
      'default_ca = d',
      '[d]',
      `database = ${join(db, 'index.txt')}`,
      `new_certs_dir = ${db}`,
      `serial = ${join(db, 'serial')}`,
      'default_md = sha256',
      'policy = p',
      'copy_extensions = copy',
      '[p]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    `/CN=${cn}`,
    '-addext',
    ext,
  );
  ssl(
    'ca',
    '-batch',
    '-config',
    `${name}-ca.cnf`,
    '-cert',
    'ca.pem',
    '-keyfile',
    'ca.key',
    '-in',
    `${name}.csr`,
    '-out',
    `${name}.pem`,
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200201000000Z',
  );
  return { cert: readFileSync(join(dir, `${name}.pem`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
}

/** Options of an HTTPS server that requires a client certificate signed by the test CA. */
export function mutualTlsOptions(certs: TestCerts): ServerOptions {
  return {
    key: certs.pem.serverKey,
    cert: certs.pem.serverCert,
    ca: certs.pem.ca,
    requestCert: true,
    rejectUnauthorized: true,
  };
}

/** The common name of the client certificate a mutual-TLS request came with. */
export function clientCommonName(req: IncomingMessage): string | undefined {
  return (req.socket as unknown as { getPeerCertificate(): { subject?: { CN?: string } } }).getPeerCertificate().subject
    ?.CN;
}
