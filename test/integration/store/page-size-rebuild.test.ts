// The rebuild of a state database with the overflow mode's pages (store/sqlite-page-size.ts), in real
// bridge processes:
// - killed (kill -9) during it: the VACUUM runs in rollback-journal mode, so the kill leaves a hot
//   `bridge.db-journal` beside a half-rewritten file. The next start must roll it back (SQLite does,
//   at the first read), find everything as it was, rebuild again and run its sessions to the end.
// - with no writable temporary directory (a read-only root file system, as config/kubernetes runs
//   the bridge): SQLite writes the VACUUM's copy there once it outgrows its page cache.
import Database from 'better-sqlite3';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { sourceEntry } from '../../helpers/compiled-sources.js';
import { exited, harness, spawnDaemon, type Harness } from '../../helpers/harness.js';
import { runToTheEnd } from '../../helpers/run-to-end.js';
import { ALWAYS_PAGE_SIZE, OVERFLOW_PAGE_SIZE } from '../../../src/store/sqlite-page-size.js';
import { openSqliteStore } from '../../../src/store/sqlite-store.js';

let h: Harness | undefined;
let state: string | undefined;
const daemons: ChildProcess[] = [];
afterEach(async () => {
  for (const d of daemons.splice(0)) if (d.exitCode === null && d.signalCode === null) d.kill('SIGKILL');
  await h?.close();
  h = undefined;
  if (state) rmSync(state, { recursive: true, force: true });
  state = undefined;
});

const FILLER_ROWS = 11_000;

/** A state directory of the always mode (64 KiB pages) with `rows` filler rows of 4,000 bytes. */
async function alwaysModeState(rows: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-rebuild-'));
  const store = await openSqliteStore(dir, { pageSize: ALWAYS_PAGE_SIZE });
  await store.putSession({ id: 'k1', attributes: {} }, 'config');
  await store.close();
  const fill = new Database(join(dir, 'bridge.db'));
  fill.exec('CREATE TABLE filler (n INTEGER PRIMARY KEY, b BLOB)');
  const insert = fill.prepare('INSERT INTO filler (b) VALUES (?)');
  fill.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(Buffer.alloc(4000, i % 256));
  })();
  fill.close();
  return dir;
}

function inspect(file: string): { pageSize: number; fillers: number; integrity: string; session: unknown } {
  const db = new Database(file);
  try {
    return {
      pageSize: db.pragma('page_size', { simple: true }) as number,
      fillers: (db.prepare('SELECT count(*) AS n FROM filler WHERE length(b) = 4000').get() as { n: number }).n,
      integrity: db.pragma('integrity_check', { simple: true }) as string,
      session: db.prepare('SELECT id, lifecycle FROM sessions').get(),
    };
  } finally {
    db.close();
  }
}

/** Resolves once the journal holds `bytes` (the file is being rewritten), false if `child` exits first. */
function journalReaches(child: ChildProcess, journal: string, bytes: number): Promise<boolean> {
  return new Promise((resolve) => {
    const poll = (): void => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(false);
      if ((statSync(journal, { throwIfNoEntry: false })?.size ?? 0) >= bytes) return resolve(true);
      setImmediate(poll);
    };
    poll();
  });
}

describe('kill -9 while the state database is rebuilt with other pages', () => {
  it('the next start rolls the rebuild back, keeps everything, rebuilds and runs the session to its end', async () => {
    h = await harness({ bufferSize: 10_000 });
    h.sim.createSession('k1').produce(200);
    // Big enough (about 48 MiB, under the rebuild's limit) that its VACUUM takes long enough to be
    // caught while it rewrites the file.
    state = await alwaysModeState(FILLER_ROWS);
    const file = join(state, 'bridge.db');
    expect(inspect(file)).toMatchObject({ pageSize: ALWAYS_PAGE_SIZE, fillers: FILLER_ROWS, integrity: 'ok' });

    const env = h.env({ BRIDGE_STATE_DIR: state, BRIDGE_SESSIONS: 'k1', LOG_LEVEL: 'info' });
    const first = spawnDaemon(env, ['run', '--until-ended']);
    daemons.push(first);
    const journal = `${file}-journal`;
    // 16 MiB of journal: well past the page cache SQLite spills from, so the file is half rewritten.
    expect(await journalReaches(first, journal, 16 * 1024 * 1024), first.output()).toBe(true);
    first.kill('SIGKILL');
    await exited(first);
    // The hot journal holds the file's old pages: SQLite gives it the database file's mode.
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = spawnDaemon(env, ['run', '--until-ended']);
    daemons.push(second);
    await runToTheEnd(h, second, ['k1'], { lag: 20, what: 'the restarted daemon to deliver', timeoutMs: 60_000 });
    expect(second.output()).toMatch(/state database rebuilt with 4096-byte pages for spool.mode overflow/);
    expect(statSync(journal, { throwIfNoEntry: false })).toBeUndefined();
    const after = inspect(file);
    expect(after).toMatchObject({ pageSize: OVERFLOW_PAGE_SIZE, fillers: FILLER_ROWS, integrity: 'ok' });
    expect(after.session).toMatchObject({ id: 'k1', lifecycle: 'ended' });
  }, 120_000);
});

// Root may mount in a namespace of its own; elsewhere the test says why it did not run.
const canUnshare = process.getuid?.() === 0 && spawnSync('unshare', ['-m', 'true']).status === 0;

describe.skipIf(!canUnshare)(
  'no writable temporary directory (a read-only root file system; needs root and unshare)',
  () => {
    it.each([
      [1_000, /"msg":"state database rebuilt with 4096-byte pages for spool.mode overflow"/],
      [
        5_000,
        /"reason":"no writable temporary directory for the copy \(SQLite looks at SQLITE_TMPDIR, TMPDIR, \/var\/tmp, \/tmp and the working directory\)","msg":"state database kept its 65536-byte pages/,
      ],
    ])(
      '%i rows of 4,000 bytes: %s',
      async (rows, expected) => {
        state = await alwaysModeState(rows);
        // /tmp, /var/tmp and the working directory read-only, the state directory writable: what a
        // container with readOnlyRootFilesystem and a volume for /var/lib/bridge sees.
        const dir = realpathSync(state);
        const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
        const entry = sourceEntry('cli/main.ts').map((a) => (a === 'tsx' ? tsx : a));
        const readOnly = ['/tmp', '/var/tmp', realpathSync(tmpdir())].filter((d, i, all) => all.indexOf(d) === i);
        const mounts = [
          ...readOnly
            .filter((d) => existsSync(d))
            .map((d) => `mount --bind ${d} ${d} && mount -o remount,bind,ro ${d}`),
          `mount --bind ${dir} ${dir} && mount -o remount,bind,rw ${dir}`,
        ];
        const run = spawnSync(
          'unshare',
          [
            '-m',
            'sh',
            '-c',
            `${mounts.join(' && ')} && cd /tmp && exec "$0" "$@"`,
            process.execPath,
            ...entry,
            'run',
            '--until-ended',
          ],
          {
            encoding: 'utf8',
            timeout: 60_000,
            env: {
              PATH: process.env.PATH,
              TSX_DISABLE_CACHE: '1',
              LOG_LEVEL: 'info',
              BRIDGE_STATE_DIR: dir,
              BRIDGE_LISTEN: 'off',
              BROWSER_API_URL: 'http://127.0.0.1:9',
              BROWSER_API_KEY: 'k',
              OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
            },
          },
        );
        const output = `${run.stdout}${run.stderr}`;
        expect(run.status, output).toBe(0);
        expect(output).toMatch(expected);
        expect(inspect(join(dir, 'bridge.db'))).toMatchObject({ fillers: rows, integrity: 'ok' });
      },
      60_000,
    );
  },
);
