// Facts → log lines: the level and the words an operator reads for each fact, in one table
// (fact-log-lines.ts; the words and repetition rules several lines share are fact-log-words.ts).
// Facts that happen per event or per request (counts, export attempts) write no line: the metrics
// carry them. Repeated failures are said on the first occurrence and then every so often (`streak`,
// `attempt`), so a long outage does not flood the log.
import type { Logger } from 'pino';
import { applyFact, type Fact } from '../vocabulary/facts.js';
import { LOG_LINES } from './fact-log-lines.js';

/** Writes the log line of `fact`, if it has one. */
export function logFact(log: Logger, fact: Fact): void {
  applyFact(LOG_LINES, log, fact);
}
