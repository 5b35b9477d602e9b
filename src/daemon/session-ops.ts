// Per-session chains of operations: a PUT racing a DELETE (or a reload, or discovery) of the same
// session runs after it, in order, whether the earlier one succeeded or failed.

export class SessionOps {
  private readonly ops = new Map<string, Promise<unknown>>();

  /** Runs `op` once every operation queued before it for the session `id` settled. */
  serial<T>(id: string, op: () => Promise<T>): Promise<T> {
    const run = (this.ops.get(id) ?? Promise.resolve()).then(op, op);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.ops.set(id, tail);
    void tail.then(() => {
      if (this.ops.get(id) === tail) this.ops.delete(id);
    });
    return run;
  }
}
