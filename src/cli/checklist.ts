// The ✓/✗ list `check` prints: one line per check with the reason for each ✗, optional indented
// notes (warnings that do not fail the check), and a closing count. Pure. Details carry the
// service's and the collector's own words (an error body's message), so their control characters
// are not passed on to the terminal (util/printable.ts).
import type { Paint } from './ansi.js';
import { printable } from '../util/printable.js';

export type CheckStatus = 'ok' | 'fail' | 'skip';

export interface CheckItem {
  label: string;
  status: CheckStatus;
  detail: string;
  notes?: Array<{ level: 'warn' | 'info'; text: string }>;
}

const MARK: Record<CheckStatus, string> = { ok: '✓', fail: '✗', skip: '–' };

/** One item; `width` aligns the labels of a list. */
export function formatCheckItem(item: CheckItem, width: number, p: Paint): string {
  const color = item.status === 'ok' ? p.green : item.status === 'fail' ? p.red : p.dim;
  const lines = [
    `${color(MARK[item.status])} ${printable(item.label).padEnd(width)}  ${item.status === 'skip' ? p.dim(printable(item.detail)) : printable(item.detail)}`,
  ];
  for (const n of item.notes ?? []) {
    const text = printable(n.text);
    lines.push(`  ${' '.repeat(width)}  ${n.level === 'warn' ? p.yellow(`⚠ ${text}`) : p.dim(`· ${text}`)}`);
  }
  return lines.join('\n');
}

/** The closing count: of every line shown, skipped ones included, so the numbers match the list. */
export function formatChecklistFooter(items: readonly CheckItem[], p: Paint): string {
  const failed = items.filter((i) => i.status === 'fail').length;
  const skipped = items.filter((i) => i.status === 'skip').length;
  const total = items.length;
  const skippedText = skipped > 0 ? `, ${skipped} skipped` : '';
  if (failed > 0) return p.red(`${failed} of ${total} checks failed${skippedText}`);
  if (skipped > 0) return p.green(`${total - skipped} of ${total} checks passed${skippedText}`);
  return p.green(`all ${total} checks passed`);
}
