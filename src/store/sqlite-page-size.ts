// The page size of the state database, chosen by what the healthy path writes, and the rebuild of
// a file that has the other one.
//
// SQLite writes a page whole, to the WAL and again to the database at the WAL's checkpoint, however
// few of its bytes changed:
// - `spool.mode: overflow` writes checkpoints (and, with traces on, span states) on the healthy path:
//   a few hundred bytes a session, once a second. A 64 KiB page made each such write a 64 KiB frame:
//   0.34 bytes written per OTLP byte with five sessions at 20 events/s, about 1.7 with one. With
//   4 KiB pages: 0.02 and 0.10 (docs/benchmarks.md "Pages of the state database"). Segments reach
//   the store only when the collector falls behind (a spill), which pays for the chains below.
// - `spool.mode: always` commits every record as a segment of a few KiB to a few hundred and deletes
//   it once delivered. With 4 KiB pages each segment is an overflow chain, one WAL frame (two write
//   calls) per page; 64 KiB pages halve the CPU of that cycle.
//
// SQLite fixes the page size when it writes a new file's header; a VACUUM in rollback-journal mode
// rebuilds an existing file with another. A file with the other size (made by an earlier version,
// which used 64 KiB pages whatever the mode, or before a change of `spool.mode`) is rebuilt when the
// store opens it if it holds little. A full one (an outage's backlog) keeps its size, and works as
// it is, until a start finds the backlog delivered. A rebuild that cannot run (another connection
// reading the file, a full disk) leaves the file as it was: SQLite rolls a VACUUM back as a whole,
// even after a kill -9 (from its journal, at the next open).
import type Database from 'better-sqlite3';
import type { SpoolMode } from '../config/schema.js';

/** Pages for the overflow mode: the healthy path writes checkpoints only. */
export const OVERFLOW_PAGE_SIZE = 4096;
/** Pages for the always mode: the healthy path writes and deletes every record's segment. */
export const ALWAYS_PAGE_SIZE = 65536;
/** Files whose pages in use hold up to this much are rebuilt at open (a VACUUM of a few MiB takes milliseconds). */
export const REBUILD_MAX_BYTES = 64 * 1024 * 1024;
/**
 * Files holding up to this much are copied in memory: a VACUUM builds the new file as a temporary database,
 * which SQLite writes, past its page cache (about 2 MiB), in /var/tmp or /tmp, not in the state
 * directory. With a read-only root file system (config/kubernetes) it has none, and the rebuild
 * failed with "disk I/O error" at every start. Fuller files keep the temporary file: their copy
 * would cost up to REBUILD_MAX_BYTES of memory at start.
 */
export const IN_MEMORY_REBUILD_MAX_BYTES = 16 * 1024 * 1024;

export function pageSizeFor(mode: SpoolMode | undefined): number {
  return mode === 'always' ? ALWAYS_PAGE_SIZE : OVERFLOW_PAGE_SIZE;
}

export type PageSizeOutcome =
  | { rebuilt: true; from: number; to: number; bytes: number; ms: number }
  | { rebuilt: false; pageSize: number; wanted: number; bytes: number; reason: string };

/**
 * Before the store sets its journal mode: rebuilds `db` with `wanted` pages if it has others and
 * its pages in use hold at most `maxBytes`. Undefined when the size is already right (every new
 * file: the caller sets `page_size` before anything writes the header).
 */
export function settlePageSize(
  db: Database.Database,
  wanted: number,
  maxBytes = REBUILD_MAX_BYTES,
): PageSizeOutcome | undefined {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  if (pageSize === wanted) return undefined;
  // What a VACUUM copies: the pages in use. The file never shrinks by itself (pages of delivered
  // segments stay in it, free), so its size would keep a file that once held a backlog from ever
  // being rebuilt, however little it holds now.
  const pages = db.pragma('page_count', { simple: true }) as number;
  const bytes = pageSize * (pages - (db.pragma('freelist_count', { simple: true }) as number));
  if (bytes > maxBytes) {
    return { rebuilt: false, pageSize, wanted, bytes, reason: `the file holds ${bytes} bytes, over ${maxBytes}` };
  }
  const started = performance.now();
  // No wait for a lock: a reader of the file (a copy being taken) makes this start keep the size.
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  if (bytes <= IN_MEMORY_REBUILD_MAX_BYTES) db.pragma('temp_store = MEMORY');
  try {
    // A page size can change only outside WAL mode; leaving it checkpoints the WAL into the file.
    const mode = db.pragma('journal_mode = DELETE', { simple: true }) as string;
    if (mode !== 'delete') {
      return { rebuilt: false, pageSize, wanted, bytes, reason: `the journal mode stayed ${mode}` };
    }
    db.pragma(`page_size = ${wanted}`);
    db.exec('VACUUM');
  } catch (err) {
    return { rebuilt: false, pageSize, wanted, bytes, reason: rebuildFailure(err) };
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
    db.pragma('temp_store = DEFAULT');
  }
  const now = db.pragma('page_size', { simple: true }) as number;
  if (now !== wanted) {
    return { rebuilt: false, pageSize: now, wanted, bytes, reason: `SQLite kept ${now}-byte pages` };
  }
  return { rebuilt: true, from: pageSize, to: wanted, bytes, ms: Math.round(performance.now() - started) };
}

/** SQLite's words, except where they would blame the state volume for the temporary directory. */
function rebuildFailure(err: unknown): string {
  const e = err as { code?: string; message: string };
  if (e.code !== 'SQLITE_IOERR_GETTEMPPATH') return e.message;
  return 'no writable temporary directory for the copy (SQLite looks at SQLITE_TMPDIR, TMPDIR, /var/tmp, /tmp and the working directory)';
}
