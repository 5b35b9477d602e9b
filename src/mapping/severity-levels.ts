// OpenTelemetry severity numbers (logs data model, "Field: SeverityNumber") and their short names;
// severity_text always matches the number.

export const SEVERITY = {
  TRACE: 1,
  DEBUG: 5,
  INFO: 9,
  WARN: 13,
  ERROR: 17,
  FATAL: 21,
} as const;

export type SeverityNumber = (typeof SEVERITY)[keyof typeof SEVERITY];

// Indexed by severity number; only the range starts are used by the mapper.
const TEXT: readonly string[] = (() => {
  const names = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'];
  const out: string[] = ['UNSPECIFIED'];
  for (let n = 1; n <= 24; n++) {
    const group = Math.floor((n - 1) / 4);
    const step = (n - 1) % 4;
    out.push(step === 0 ? names[group]! : `${names[group]!}${step + 1}`);
  }
  return out;
})();

/** The short name of a severity number (`WARN`, `ERROR2`, …). */
export function severityText(n: number): string {
  return TEXT[n] ?? 'UNSPECIFIED';
}
