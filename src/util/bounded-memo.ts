// Memoizes a pure function of a string for the per-event path, where keys come from a small
// vocabulary (event types, header and parameter names, metadata keys) that repeats from event to
// event. Bounded: past `limit` entries the memo starts over, so keys that never repeat (hostile or
// merely varied input) cannot grow it, and the common keys come back after the next few events.
export function boundedMemo<V>(limit: number, compute: (key: string) => V): (key: string) => V {
  const memo = new Map<string, V>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      value = compute(key);
      if (memo.size >= limit) memo.clear();
      memo.set(key, value);
    }
    return value;
  };
}
