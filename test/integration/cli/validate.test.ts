// `validate` and the name checks as a person meets them: the real CLI in a child process. Nothing
// here listens: the service and collector URLs point at a closed port, which proves `validate`
// needs no network.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from './cli-process.js';

const NOWHERE = 'http://127.0.0.1:9';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'validate-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const BASE = [
  'upstream:',
  '  url: ${env:SVC_URL}',
  '  api_key: ${env:SVC_KEY:-dev-key}',
  'exporter:',
  '  endpoint: ${env:COLLECTOR}',
  '  timeout: 5s',
];

/** A configuration from the environment alone, every peer at a closed port, no HTTP surface. */
const ENV_ONLY = {
  BROWSER_API_URL: NOWHERE,
  BROWSER_API_KEY: 'k',
  OTEL_EXPORTER_OTLP_ENDPOINT: NOWHERE,
  BRIDGE_LISTEN: 'off',
};

describe('validate', () => {
  it('a valid configuration: exit 0 and a one-line summary, without any network', async () => {
    const path = config('ok.yaml', [...BASE, 'sessions: [a, b]', 'spool:', '  max_bytes: 64MiB'].join('\n'));
    const res = await runCli(['validate', '--config', path], {
      SVC_URL: NOWHERE,
      COLLECTOR: NOWHERE,
      BRIDGE_STATE_DIR: join(dir, 'never-created'),
    });
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe(
      `configuration is valid (${path} + environment): 2 sessions from ${NOWHERE}, collector ${NOWHERE}/v1/logs (http/protobuf), state ${join(dir, 'never-created')}, listen 127.0.0.1:9464\n`,
    );
    expect(res.code).toBe(0);
    expect(existsSync(join(dir, 'never-created'))).toBe(false);
  });

  it('with a shared store the summary names it, without its password, instead of a state directory', async () => {
    const path = config('shared.yaml', [...BASE, 'sessions: [a]'].join('\n'));
    const res = await runCli(['validate', '--config', path], {
      SVC_URL: NOWHERE,
      COLLECTOR: NOWHERE,
      BRIDGE_STORE_URL: 'postgres://bridge@db.internal:5432/bridge?password=hunter2',
    });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(
      /, shared store postgres:\/\/bridge@db\.internal:5432\/bridge\?password=[^ ,]+, listen /,
    );
    expect(res.stdout).not.toContain('hunter2');
  });

  it('an invalid configuration: exit 2 with the same line as run', async () => {
    const path = config('bad.yaml', [...BASE, 'spool:', '  max_bytes: lots'].join('\n'));
    const env = { SVC_URL: NOWHERE, COLLECTOR: NOWHERE, BRIDGE_LISTEN: 'off' };
    const validate = await runCli(['validate', '-c', path], env);
    const run = await runCli(['run', '-c', path], env);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toBe(
      'invalid configuration: spool.max_bytes: must be a size such as 268435456 or "256MiB" (got "lots")\n',
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(validate.stderr);
  });

  it('several problems: validate and run both print every one, each naming its key', async () => {
    const path = config(
      'many.yaml',
      [...BASE, 'spool:', '  max_bytes: lots', 'exporter_typo: 1', 'mapping:', '  body_format: xml'].join('\n'),
    );
    const env = { SVC_URL: NOWHERE, COLLECTOR: NOWHERE, BRIDGE_LISTEN: 'off' };
    const validate = await runCli(['validate', '-c', path], env);
    const run = await runCli(['run', '-c', path], env);
    expect(validate.code).toBe(2);
    expect(validate.stderr).toBe(
      [
        'invalid configuration: 3 problems:',
        '  exporter_typo: unknown key (expected one of: upstream, sessions, discovery, start, state, store, spool, listen, control_token, control_allowed_hosts, max_sessions, exporter, traces, service, shutdown, memory_limit, workers, mapping)',
        '  spool.max_bytes: must be a size such as 268435456 or "256MiB" (got "lots")',
        '  mapping.body_format: must be one of: map, json',
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(validate.stderr);
  });

  it('an alias inside the node it names is one line naming where, exit 2 (it was a stack overflow, exit 1)', async () => {
    const path = config('cycle.yaml', [...BASE, 'sessions: [a]', 'extra: &loop', '  again: *loop'].join('\n'));
    const res = await runCli(['validate', '--config', path], { SVC_URL: NOWHERE, COLLECTOR: NOWHERE });
    expect(res).toMatchObject({
      code: 2,
      stderr: `invalid configuration: config: ${path} is not valid YAML: the alias at extra.again refers to a mapping or list that contains it\n`,
    });
  });

  it('a value with a line break or an escape sequence is quoted on one line, without them', async () => {
    const res = await runCli(['validate'], {
      BROWSER_API_URL: NOWHERE,
      BROWSER_API_KEY: 'k',
      OTEL_EXPORTER_OTLP_ENDPOINT: NOWHERE,
      BRIDGE_SESSIONS: 'a\nb,c\u001b[2Jd',
    });
    expect(res).toMatchObject({
      code: 2,
      stderr: 'invalid configuration: BRIDGE_SESSIONS: "a⏎b" is not a valid session id\n',
    });
    const escape = await runCli(['validate'], {
      BROWSER_API_URL: NOWHERE,
      BROWSER_API_KEY: 'k',
      OTEL_EXPORTER_OTLP_ENDPOINT: NOWHERE,
      BRIDGE_SPOOL_MODE: 'x\u001b]0;title\u0007',
    });
    expect(escape.code).toBe(2);
    expect(escape.stderr).toBe(
      'invalid configuration: BRIDGE_SPOOL_MODE: must be one of overflow, always (got "x\ufffd]0;title\ufffd")\n',
    );
  });

  it("LOG_LEVEL: empty is unset, any case is read, an unknown level is one line naming it for validate and run (it was pino's own error, exit 1)", async () => {
    const env = ENV_ONLY;
    expect((await runCli(['validate'], { ...env, LOG_LEVEL: '' })).code).toBe(0);
    expect((await runCli(['validate'], { ...env, LOG_LEVEL: 'Debug' })).code).toBe(0);
    const said =
      'invalid configuration: LOG_LEVEL: must be one of trace, debug, info, warn, error, fatal, silent (got "verbose")\n';
    expect(await runCli(['validate'], { ...env, LOG_LEVEL: 'verbose' })).toMatchObject({ code: 2, stderr: said });
    expect(
      await runCli(['run'], { ...env, LOG_LEVEL: 'verbose', BRIDGE_STATE_DIR: join(dir, 'never-created-either') }),
    ).toMatchObject({ code: 2, stderr: said });
  });

  it('BRIDGE_CONTROL_INSECURE and LOG_LEVEL that run refuses: validate and check refuse them too (they passed)', async () => {
    const env = { ...ENV_ONLY, BRIDGE_STATE_DIR: join(dir, 'never-created-3') };
    const insecure = { ...env, BRIDGE_CONTROL_INSECURE: 'maybe' };
    const ran = await runCli(['run'], insecure);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/^invalid configuration: BRIDGE_CONTROL_INSECURE: /);
    expect(await runCli(['validate'], insecure)).toMatchObject({ code: 2, stderr: ran.stderr });
    const checked = await runCli(['check'], insecure);
    expect(checked.code).toBe(2);
    expect(checked.stdout).toMatch(/^✗ configuration +BRIDGE_CONTROL_INSECURE: /);
    const loud = await runCli(['check'], { ...env, LOG_LEVEL: 'loud' });
    expect(loud.code).toBe(2);
    expect(loud.stdout).toMatch(/^✗ configuration +LOG_LEVEL: must be one of/);
    expect(existsSync(join(dir, 'never-created-3'))).toBe(false);
  });

  it("blank variables are unset (config/env-values.ts): the file's listen and workers apply, a state directory loses its trailing blank", async () => {
    // Before, BRIDGE_LISTEN="" silently turned the HTTP surface off and BRIDGE_WORKERS="" was exit 2.
    const path = config(
      'blank-env.yaml',
      [...BASE, 'sessions: [a]', 'listen: 127.0.0.1:9555', 'workers: 2'].join('\n'),
    );
    const res = await runCli(['validate', '--config', path], {
      SVC_URL: NOWHERE,
      COLLECTOR: NOWHERE,
      BRIDGE_LISTEN: '',
      BRIDGE_WORKERS: '',
      BRIDGE_MAX_SESSIONS: ' ',
      OTEL_EXPORTER_OTLP_PROTOCOL: '',
      BRIDGE_STATE_DIR: `${join(dir, 'blank-env-state')} `,
    });
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe(
      `configuration is valid (${path} + environment): 1 session from ${NOWHERE}, collector ${NOWHERE}/v1/logs (http/protobuf), state ${join(dir, 'blank-env-state')}, listen 127.0.0.1:9555\n`,
    );
    expect(res.code).toBe(0);
  });

  it('a missing file and an unset variable are one line each', async () => {
    const missing = await runCli(['validate', '--config', join(dir, 'nope.yaml')], {});
    expect(missing).toMatchObject({
      code: 2,
      stderr: `invalid configuration: --config: ${join(dir, 'nope.yaml')} does not exist\n`,
    });
    const path = config('unset.yaml', BASE.join('\n'));
    const unset = await runCli(['validate', '--config', path], { COLLECTOR: NOWHERE });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(
      /^invalid configuration: upstream\.url: environment variable SVC_URL is not set \(referenced as \$\{env:SVC_URL\}; write \$\{env:SVC_URL:-default\} to give a default\)\n$/,
    );
  });

  it('a misspelt BRIDGE_* variable is a warning naming the closest one, from validate, check and run', async () => {
    const env = {
      BROWSER_API_URL: NOWHERE,
      BROWSER_API_KEY: 'k',
      BRIDGE_SESSION: 's1',
      BRIDGE_STATE_DIR: join(dir, 's'),
    };
    const res = await runCli(['validate'], env);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(
      'warning: BRIDGE_SESSION is set, but the bridge reads no such variable; did you mean BRIDGE_SESSIONS?\n',
    );
    const check = await runCli(['check'], env);
    expect(check.stdout).toMatch(/^✓ configuration .*\n\s+⚠ BRIDGE_SESSION is set, but .*BRIDGE_SESSIONS\?/m);
    const run = startCli(['run'], { ...env, BRIDGE_LISTEN: 'off', LOG_LEVEL: 'info' });
    await run.waitFor(/"version"/);
    expect(run.stderr()).toContain('BRIDGE_SESSION is set, but the bridge reads no such variable');
    run.child.kill('SIGTERM');
    expect((await run.done).code).toBe(0);
  });

  it('a misspelt category is refused with the valid names; a misspelt type is a warning, refused when no type of the include list is known', async () => {
    const badCategory = config(
      'cat.yaml',
      [...BASE, 'mapping:', '  filters:', '    include_categories: [consol]'].join('\n'),
    );
    const res = await runCli(['validate', '--config', badCategory], { SVC_URL: NOWHERE, COLLECTOR: NOWHERE });
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(
      'invalid configuration: mapping.filters.include_categories[0]: unknown category "consol" (did you mean "console"?); valid categories: captcha, connection, console, control, interaction, monitor, network, page, platform, screenshot, system\n',
    );

    // Only unknown types: the filter would drop every event the service sends today.
    const onlyUnknown = config(
      'only-unknown.yaml',
      [...BASE, 'mapping:', '  filters:', '    include_types: [console_eror]'].join('\n'),
    );
    const refused = await runCli(['validate', '--config', onlyUnknown], { SVC_URL: NOWHERE, COLLECTOR: NOWHERE });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'invalid configuration: mapping.filters.include_types: no event type in the list is known ("console_eror" (did you mean "console_error"?)), so this include filter would drop every event; fix the names, or set mapping.filters.allow_unknown_types: true if you expect types newer than this bridge\n',
    );
    const expected = config(
      'expected.yaml',
      [...BASE, 'mapping:', '  filters:', '    include_types: [console_eror]', '    allow_unknown_types: true'].join(
        '\n',
      ),
    );
    expect((await runCli(['validate', '--config', expected], { SVC_URL: NOWHERE, COLLECTOR: NOWHERE })).code).toBe(0);

    const badType = config(
      'type.yaml',
      [...BASE, 'mapping:', '  filters:', '    include_types: [console_eror, page_load]'].join('\n'),
    );
    const ok = await runCli(['validate', '--config', badType], { SVC_URL: NOWHERE, COLLECTOR: NOWHERE });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(
      'warning: mapping.filters.include_types: "console_eror" is not a known event type (did you mean "console_error"?)',
    );

    // check shows the same warning under its configuration line (and fails later: nothing listens).
    const check = await runCli(['check', '--config', badType], {
      SVC_URL: NOWHERE,
      COLLECTOR: NOWHERE,
      BRIDGE_STATE_DIR: join(dir, 'state'),
    });
    expect(check.stdout).toMatch(
      /^✓ configuration .*\n\s+⚠ mapping\.filters\.include_types: "console_eror" is not a known event type \(did you mean "console_error"\?\)/m,
    );
  });
});

describe('tail names', () => {
  it('--categories with an unknown name exits 2 with the valid names, before any connection', async () => {
    const res = await runCli(['tail', 's1', '--categories', 'network,consol'], {
      BROWSER_API_URL: NOWHERE,
      BROWSER_API_KEY: 'k',
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(
      /^--categories: unknown category "consol" \(did you mean "console"\?\); valid categories: captcha, .*, system\n$/,
    );
  });

  it('--types with an unknown name warns with the closest type and keeps following', async () => {
    const p = startCli(['tail', 's1', '--types', 'console_eror'], { BROWSER_API_URL: NOWHERE, BROWSER_API_KEY: 'k' });
    await p.waitFor(/--types: "console_eror" is not a known event type \(did you mean "console_error"\?\)/);
    await p.waitFor(/reconnecting/);
    p.child.kill('SIGTERM');
    // Stopped by a signal: 128 + 15, as a shell reports it (tail-command.ts).
    expect((await p.done).code).toBe(143);
  });
});
