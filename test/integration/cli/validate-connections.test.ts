// What every connection would be opened with, checked when the configuration loads: the proxy
// variables and the TLS material. Before, `validate` passed them and the daemon either failed every
// request or died (a raw % in a proxy password, a client key that is not PEM). Now: one line naming
// the variable, exit 2, from `validate` and from `run` alike; credentials are never echoed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCerts, type TestCerts } from '../../helpers/test-certs.js';
import { runCli } from './cli-process.js';

const NOWHERE = 'http://127.0.0.1:9';
const BASE = { BROWSER_API_URL: NOWHERE, BROWSER_API_KEY: 'k', OTEL_EXPORTER_OTLP_ENDPOINT: NOWHERE };
let certs: TestCerts;
let notPem: string;
beforeAll(() => {
  certs = makeTestCerts();
  notPem = join(certs.dir, 'not-pem.txt');
  writeFileSync(notPem, 'this is not PEM\n');
});
afterAll(() => certs.remove());

describe('validate: proxy variables and TLS material', () => {
  it('a raw % in the proxy password: exit 2 naming the variable, from validate and run alike', async () => {
    const env = { ...BASE, HTTPS_PROXY: 'http://user:50%off@proxy.internal:3128', BRIDGE_LISTEN: 'off' };
    const validate = await runCli(['validate'], env);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toBe(
      'invalid configuration: HTTPS_PROXY: the credentials in HTTPS_PROXY are not valid percent-encoding: write a % in the user name or password as %25 (and @ : / as %40 %3A %2F)\n',
    );
    const run = await runCli(['run'], { ...env, BRIDGE_STATE_DIR: join(certs.dir, 'state') });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(validate.stderr);
  });

  it.each<[string, () => Record<string, string>, string, RegExp]>([
    [
      'a client key that is not PEM',
      () => ({ OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: certs.paths.clientCert, OTEL_EXPORTER_OTLP_CLIENT_KEY: notPem }),
      'OTEL_EXPORTER_OTLP_CLIENT_KEY',
      /is not an unencrypted PEM private key/,
    ],
    [
      'a client certificate that is not PEM',
      () => ({ OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: notPem, OTEL_EXPORTER_OTLP_CLIENT_KEY: certs.paths.clientKey }),
      'OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE',
      /is not a PEM certificate/,
    ],
    [
      "a key that is not the certificate's",
      () => ({
        OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: certs.paths.clientCert,
        OTEL_EXPORTER_OTLP_CLIENT_KEY: certs.paths.serverKey,
      }),
      'OTEL_EXPORTER_OTLP_CLIENT_KEY',
      /is not the key of the certificate/,
    ],
    [
      'a collector CA file without a certificate',
      () => ({ OTEL_EXPORTER_OTLP_CERTIFICATE: notPem }),
      'OTEL_EXPORTER_OTLP_CERTIFICATE',
      /holds no PEM certificate/,
    ],
    [
      'a service CA file without a certificate',
      () => ({ BROWSER_API_CA_FILE: notPem }),
      'BROWSER_API_CA_FILE',
      /holds no PEM certificate/,
    ],
  ])('%s: exit 2, one line naming the variable', async (_name, extra, variable, message) => {
    const res = await runCli(['validate'], { ...BASE, ...extra() });
    expect(res.code).toBe(2);
    expect(res.stderr.startsWith(`invalid configuration: ${variable}: `)).toBe(true);
    expect(res.stderr).toMatch(message);
    expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('good material and a proxy with encoded credentials pass', async () => {
    const res = await runCli(['validate'], {
      ...BASE,
      HTTPS_PROXY: 'http://user:50%25off@proxy.internal:3128',
      OTEL_EXPORTER_OTLP_CERTIFICATE: certs.paths.ca,
      OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: certs.paths.clientCert,
      OTEL_EXPORTER_OTLP_CLIENT_KEY: certs.paths.clientKey,
      BROWSER_API_CA_FILE: certs.paths.ca,
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
  });
});
