// The demo's daemon logs JSON to a pipe; the demo prints each record as one readable line, and a
// failed run says why in words (delivery-tally.ts).
import { describe, expect, it } from 'vitest';
import { formatDaemonLine } from '../../../../src/devkit/demo/daemon-log.js';
import { describeFailure, type SessionTally } from '../../../../src/devkit/demo/delivery-tally.js';

describe('formatDaemonLine', () => {
  const cases: Array<[string, string, string]> = [
    [
      'a warning about a session',
      '{"level":40,"time":1,"name":"bridge","session":"demo-1","msg":"reconnecting"}',
      'daemon warn [demo-1]: reconnecting',
    ],
    [
      'an error with its message',
      '{"level":50,"msg":"cannot commit","error":"disk full"}',
      'daemon error: cannot commit: disk full',
    ],
    ['a level pino does not name', '{"level":35,"msg":"x"}', 'daemon 35: x'],
    ['not JSON: kept as it is', 'node: warning', 'daemon: node: warning'],
    ['JSON that is no log record', '[1,2]', 'daemon: [1,2]'],
  ];
  it.each(cases)('%s', (_name, line, want) => expect(formatDaemonLine(line)).toBe(want));

  it('names the frame of a skipped frame once: a resume (or the restarted daemon) that reads it again says nothing new', () => {
    const seen = new Set<string>();
    const line = (session: string, frameId: string): string =>
      `{"level":40,"session":"${session}","frameId":"${frameId}","msg":"malformed frame skipped"}`;
    expect(formatDaemonLine(line('demo-2', '750'), seen)).toBe(
      'daemon warn [demo-2]: malformed frame skipped (frame 750)',
    );
    expect(formatDaemonLine(line('demo-2', '750'), seen)).toBeUndefined();
    expect(formatDaemonLine(line('demo-2', '751'), seen)).toBe(
      'daemon warn [demo-2]: malformed frame skipped (frame 751)',
    );
    expect(formatDaemonLine(line('demo-3', '750'), seen)).toBe(
      'daemon warn [demo-3]: malformed frame skipped (frame 750)',
    );
    // Lines about no frame are printed every time.
    const other = '{"level":40,"session":"demo-2","msg":"reconnecting"}';
    expect(formatDaemonLine(other, seen)).toBe('daemon warn [demo-2]: reconnecting');
    expect(formatDaemonLine(other, seen)).toBe('daemon warn [demo-2]: reconnecting');
  });
});

describe('describeFailure', () => {
  const tally = (sessionId: string, missing: number, missingSample: number[]): SessionTally => ({
    sessionId,
    unique: 0,
    duplicates: 0,
    gapRecords: 0,
    gapEvents: 0,
    tailsUnknown: 0,
    missing,
    missingSample,
  });
  const cases: Array<[string, SessionTally[], number | null | undefined, string]> = [
    [
      'a daemon that failed is named first',
      [tally('a', 0, [])],
      1,
      '✗ delivery incomplete: the daemon exited with code 1 (its log lines are above)',
    ],
    [
      'an exit 0 says what is missing, never "exit code 0" alone',
      [tally('a', 0, []), tally('b', 2, [7, 9])],
      0,
      '✗ delivery incomplete: the daemon exited 0 but the receiver lacks events; 2 event(s) missing: b lacks 2 (seq 7, 9)',
    ],
    [
      'a daemon that did not finish',
      [tally('a', 12, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])],
      undefined,
      '✗ delivery incomplete: the daemon had not finished after 61 s and delivered nothing new for 30 s (stopped with SIGTERM); 12 event(s) missing: a lacks 12 (seq 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …)',
    ],
  ];
  it.each(cases)('%s', (_name, tallies, code, want) => expect(describeFailure(tallies, code, 61.2, 30)).toBe(want));
});
