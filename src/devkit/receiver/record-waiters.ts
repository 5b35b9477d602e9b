// The receiver's waitFor: promises that settle once a predicate over the accepted records holds,
// checked again whenever records arrive, or that reject after a timeout with what did arrive.
import { inspect } from 'node:util';
import type { ReceivedLogRecord } from './decode.js';

export class RecordWaiters {
  readonly #checks = new Set<() => void>();

  constructor(
    private readonly records: () => ReceivedLogRecord[],
    private readonly describe: () => string,
  ) {}

  /** Resolves once `predicate(records)` holds; rejects after `timeoutMs`, or if the predicate throws. */
  waitFor(predicate: (records: ReceivedLogRecord[]) => boolean, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (err?: unknown): void => {
        clearTimeout(timer);
        this.#checks.delete(check);
        if (err === undefined) resolve();
        else reject(err instanceof Error ? err : new Error(inspect(err)));
      };
      const check = (): void => {
        let done: boolean;
        try {
          done = predicate(this.records());
        } catch (err) {
          settle(err);
          return;
        }
        if (done) settle();
      };
      this.#checks.add(check);
      check();
      if (!this.#checks.has(check)) return;
      timer = setTimeout(
        () => settle(new Error(`waitFor timed out after ${timeoutMs} ms: ${this.describe()}`)),
        timeoutMs,
      );
    });
  }

  /** Records arrived: every pending predicate is checked again. */
  notify(): void {
    for (const check of [...this.#checks]) check();
  }
}
