// tail's notes about a broken stream: the service's way of ending a session (reset, 502, 404) is
// not shown as failures; a real outage still is, within a few tries.
import { describe, expect, it } from 'vitest';
import { HOLD, ReconnectNotes } from '../../../src/cli/tail-reconnect-notes.js';

type Step = ['connected'] | ['failed', string] | ['ended'] | ['error', string];

function run(steps: Step[]): string[] {
  const out: string[] = [];
  const notes = new ReconnectNotes((kind, text) => out.push(`${kind} ${text}`));
  for (const s of steps) {
    if (s[0] === 'connected') {
      const after = notes.connected();
      if (after) out.push(`reconnected after ${after}`);
    } else if (s[0] === 'failed') notes.failed('warn', `${s[1]}; reconnecting in 1 s`);
    else if (s[0] === 'error') notes.failed('error', s[1]);
    else notes.ended();
  }
  return out;
}

describe('ReconnectNotes', () => {
  it.each<[string, Step[], string[]]>([
    [
      'before any stream, every failure shows at once',
      [
        ['failed', 'refused'],
        ['failed', 'refused'],
      ],
      ['warn refused; reconnecting in 1 s', 'warn refused; reconnecting in 1 s'],
    ],
    [
      'a session that ends (reset, 502, then the end) shows no failure',
      [['connected'], ['failed', 'reset'], ['failed', '502'], ['ended']],
      [],
    ],
    [
      'a cut that heals is named in the reconnected line',
      [['connected'], ['failed', 'reset'], ['connected']],
      ['reconnected after reset'],
    ],
    [
      'an outage longer than the hold shows every failure, the held ones first',
      [['connected'], ['failed', 'reset'], ['failed', '502'], ['failed', '503']],
      ['warn reset; reconnecting in 1 s', 'warn 502; reconnecting in 1 s', 'warn 503; reconnecting in 1 s'],
    ],
    [
      'an error is never held',
      [['connected'], ['failed', 'reset'], ['error', '401']],
      ['warn reset; reconnecting in 1 s', 'error 401'],
    ],
    [
      'each reconnect cycle holds afresh',
      [['connected'], ['failed', 'a'], ['connected'], ['failed', 'b'], ['failed', 'c'], ['ended']],
      ['reconnected after a'],
    ],
  ])('%s', (_name, steps, want) => expect(run(steps)).toEqual(want));

  it('holds the two failures of an ending session', () => expect(HOLD).toBe(2));
});
