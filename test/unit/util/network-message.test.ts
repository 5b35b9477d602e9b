// What a failed request says, pure: the cases that need no server.
import { describe, expect, it } from 'vitest';
import { HttpParseError } from '../../../src/upstream/http-response-parser.js';
import { networkMessage } from '../../../src/util/network-message.js';

describe('networkMessage', () => {
  it.each([
    // A stream cut mid-chunk (how the service ends a session, or a proxy drops one) on the bridge's own
    // socket: the code alone ("HTTP_PARSE") was all a session's lastError and top showed.
    [
      new HttpParseError('the connection closed inside a chunked body'),
      'HTTP_PARSE: the connection closed inside a chunked body',
    ],
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'ECONNREFUSED'],
    [new Error('no code here'), 'no code here'],
  ])('%s → %s', (err, said) => {
    expect(networkMessage(err)).toBe(said);
  });
});
