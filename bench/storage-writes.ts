// Bytes this process caused to be written to storage: the spool's cost, beside the OTLP bytes the
// collector received (storageBytesPerOtlpByte in the burst and live scenarios).
import { readFileSync } from 'node:fs';

/** /proc/self/io write_bytes (Linux); 0 where it cannot be read. */
export function storageWriteBytes(): number {
  try {
    return Number(/write_bytes:\s+(\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
