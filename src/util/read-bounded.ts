// A small text file read whole, but never more than a bound: a path that names something else (a
// log file, a disk image, /dev/zero, which never ends) must fail with a line, not take the memory
// of the process or, read synchronously, stop its event loop until it does.
import { closeSync, openSync, readSync } from 'node:fs';

/** Thrown when the file holds more than the bound; `code` as node:fs errors carry theirs. */
export class FileTooLargeError extends Error {
  readonly code = 'EFBIG';
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super(`${path} is larger than ${maxBytes} bytes`);
  }
}

/** The file's text (UTF-8); FileTooLargeError past `maxBytes`, node:fs errors as they come. */
export function readTextFileBounded(path: string, maxBytes: number): string {
  const fd = openSync(path, 'r');
  try {
    // One byte more than allowed tells "exactly the bound" from "more".
    const buf = Buffer.allocUnsafe(maxBytes + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > maxBytes) throw new FileTooLargeError(path, maxBytes);
    }
    return buf.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}
