// A temporary directory on a memory file system (/dev/shm) when the machine has a roomy one, else the
// system's: for tests that open a fresh SQLite database per generated case (the model tests), where
// the commits' fsyncs on a disk were half of the time. What they check is the spool's logic, which
// an fsync does not change; crashes are tested by killing processes, whose writes the kernel keeps.
import { statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';

const SHM = '/dev/shm';

let chosen: string | undefined;

/** `/dev/shm` with at least 1 GiB free, else os.tmpdir(). */
export function memoryTmpdir(): string {
  chosen ??= (() => {
    try {
      const fs = statfsSync(SHM);
      if (fs.bavail * fs.bsize >= 1024 ** 3) return SHM;
    } catch {
      // no /dev/shm (not Linux)
    }
    return tmpdir();
  })();
  return chosen;
}
