// Which (session, seq) pairs the sink has received, to count duplicates and, against what the
// simulator produced, missing events. A `log.record.uid` is `<session id>:<seq>` (docs/design.md
// "Delivery semantics": bounded duplicates); the seq part is everything after the last colon. One growable bitmap per
// session: a million records cost ~125 KB, not a million strings.

export type SeenResult = 'new' | 'duplicate' | 'invalid';

export class SeenSet {
  private readonly bits = new Map<string, Uint8Array>();
  /** Distinct (session, seq) pairs. */
  unique = 0;
  duplicates = 0;

  add(uid: string): SeenResult {
    const colon = uid.lastIndexOf(':');
    if (colon <= 0 || colon === uid.length - 1) return 'invalid';
    const seq = Number(uid.slice(colon + 1));
    if (!Number.isSafeInteger(seq) || seq < 0) return 'invalid';
    const session = uid.slice(0, colon);
    let map = this.bits.get(session);
    const byte = seq >>> 3;
    if (map === undefined || byte >= map.length) {
      let size = map?.length ?? 1024;
      while (size <= byte) size *= 2;
      const grown = new Uint8Array(size);
      if (map) grown.set(map);
      map = grown;
      this.bits.set(session, map);
    }
    const mask = 1 << (seq & 7);
    if (map[byte]! & mask) {
      this.duplicates++;
      return 'duplicate';
    }
    map[byte]! |= mask;
    this.unique++;
    return 'new';
  }
}
