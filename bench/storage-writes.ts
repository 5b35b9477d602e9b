// Bytes this process caused to be written to storage: the spool's cost, beside the OTLP bytes the
// collector received (storageBytesPerOtlpByte in the burst, live and sidecar scenarios).
import { readFileSync } from 'node:fs';

/** /proc/<pid>/io write_bytes (Linux), this process's by default; 0 where it cannot be read. */
export function storageWriteBytes(pid: number | 'self' = 'self'): number {
  try {
    return Number(/write_bytes:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
