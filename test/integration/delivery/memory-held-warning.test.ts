// A configuration whose concurrent export requests alone could take the share of the memory budget
// that records may hold (util/memory-budget.ts HELD_SHARE) is said at start, with the settings that
// make it so; a sensible one says nothing.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startBridge, type Bridge } from '../../../src/daemon/bridge.js';
import { FAST, harness, type Harness } from '../../helpers/harness.js';

let h: Harness | undefined;
let b: Bridge | undefined;
afterEach(async () => {
  await b?.shutdown(Date.now());
  b = undefined;
  await h?.close();
  h = undefined;
});

async function warnings(exporter: Record<string, unknown>, memoryLimit: string): Promise<string[]> {
  h = await harness();
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as { level: number; msg: string });
      cb();
    },
  });
  const raw = {
    ...FAST,
    memory_limit: memoryLimit,
    exporter: { ...(FAST as { exporter?: Record<string, unknown> }).exporter, ...exporter },
  };
  b = await startBridge(h.config(raw, {}), pino({ level: 'warn' }, sink));
  return lines.filter((l) => l.level === 40).map((l) => l.msg);
}

describe('memory budget and export settings', () => {
  it('warns when concurrency × batch_max_bytes leaves too little of the budget', async () => {
    const w = await warnings({ concurrency: 16, batch_max_bytes: '8MiB' }, '256MiB');
    expect(w.some((m) => m.includes('exporter.concurrency × exporter.batch_max_bytes'))).toBe(true);
  });

  it('says nothing with the defaults and a 256 MiB budget', async () => {
    const w = await warnings({}, '256MiB');
    expect(w.filter((m) => m.includes('memory budget'))).toEqual([]);
  });
});
