// The process's limit on open files, and whether the sessions the bridge may follow fit under it.
// Every followed session holds a socket; exports, the spool's database files, the HTTP surface and
// the service's other requests need more. Past the limit every one of them fails with EMFILE at
// once: streams reconnect in a loop, exports and spool commits fail, /metrics stops answering, and
// nothing said why (300 sessions under a limit of 256: 426 EMFILE reconnects in 25 s, the spool
// "cannot open the database file", /readyz unreachable). Node raises the soft limit to the hard one
// at start, so what is read here is what the process has.
import { readFileSync } from 'node:fs';

/** Descriptors besides the streams: exports, the spool, the HTTP surface, pool and archive requests. */
export const FILES_BESIDES_STREAMS = 64;

/** The soft limit on open files from /proc/self/limits; undefined where there is none to read (not Linux). */
export function openFileLimit(
  read: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | undefined {
  let text: string;
  try {
    text = read();
  } catch {
    return undefined;
  }
  const m = /^Max open files\s+(\S+)/m.exec(text);
  if (!m) return undefined;
  return m[1] === 'unlimited' ? Infinity : Number.isSafeInteger(Number(m[1])) ? Number(m[1]) : undefined;
}

/** A warning when `maxSessions` streams and the rest do not fit under `limit`; undefined when they do. */
export function openFileWarning(limit: number | undefined, maxSessions: number): string | undefined {
  const needed = maxSessions + FILES_BESIDES_STREAMS;
  if (limit === undefined || limit >= needed) return undefined;
  return (
    `the open-file limit is ${limit}, below the ${needed} that max_sessions ${maxSessions} may need ` +
    `(a socket per stream, ${FILES_BESIDES_STREAMS} besides): past it streams, exports and the spool fail with EMFILE. ` +
    `Raise it (ulimit -n, systemd LimitNOFILE=, the container's nofile ulimit) or lower max_sessions`
  );
}
