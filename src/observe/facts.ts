// The process's fact sink: every fact goes to the metrics and to the log, in that order. Built once
// by the composition root (daemon/bridge.ts) and handed to every component as its `emit`.
import type { Logger } from 'pino';
import type { Emit } from '../vocabulary/facts.js';
import { countFact } from './fact-metrics.js';
import { logFact } from './fact-log.js';
import type { BridgeMetrics } from './metrics.js';

export function createFactSink(metrics: BridgeMetrics, log: Logger): Emit {
  return (fact) => {
    countFact(metrics, fact);
    logFact(log, fact);
  };
}
