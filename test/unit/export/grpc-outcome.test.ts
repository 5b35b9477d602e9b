import { describe, expect, it } from 'vitest';
import { grpcFailure } from '../../../src/export/grpc-outcome.js';
import { outcomeLabel } from '../../../src/export/outcome-label.js';
import { encodeStatusWithRetryInfo } from '../../../src/devkit/receiver/grpc-answer.js';

describe('gRPC status → export outcome (OTLP specification, "OTLP/gRPC Response")', () => {
  it.each([
    [1, 'CANCELLED'],
    [4, 'DEADLINE_EXCEEDED'],
    [10, 'ABORTED'],
    [11, 'OUT_OF_RANGE'],
    [14, 'UNAVAILABLE'],
    [15, 'DATA_LOSS'],
  ])('%i %s is retryable', (code, name) => {
    expect(grpcFailure(code, 'why')).toEqual({ kind: 'retryable', grpcCode: code, message: `${name}: why` });
  });

  it.each([
    [2, 'UNKNOWN'],
    [5, 'NOT_FOUND'],
    [6, 'ALREADY_EXISTS'],
    [7, 'PERMISSION_DENIED'],
    [9, 'FAILED_PRECONDITION'],
    [12, 'UNIMPLEMENTED'],
    [13, 'INTERNAL'],
    [16, 'UNAUTHENTICATED'],
  ])('%i %s is permanent', (code, name) => {
    expect(grpcFailure(code, '')).toEqual({ kind: 'failure', grpcCode: code, message: name });
  });

  it('RESOURCE_EXHAUSTED is retryable only with RetryInfo, and then waits as long as it says', () => {
    expect(grpcFailure(8, 'too big')).toEqual({ kind: 'failure', grpcCode: 8, message: 'RESOURCE_EXHAUSTED: too big' });
    expect(grpcFailure(8, 'busy', encodeStatusWithRetryInfo(8, 'busy', 3000))).toEqual({
      kind: 'retryable',
      grpcCode: 8,
      retryAfterMs: 3000,
      message: 'RESOURCE_EXHAUSTED: busy',
    });
    expect(grpcFailure(14, 'down', encodeStatusWithRetryInfo(14, 'down', 500))).toMatchObject({
      kind: 'retryable',
      retryAfterMs: 500,
    });
  });

  it('INVALID_ARGUMENT is refused for its content, like HTTP 400', () => {
    expect(grpcFailure(3, 'bad record')).toEqual({
      kind: 'failure',
      grpcCode: 3,
      refused: 'invalid',
      message: 'INVALID_ARGUMENT: bad record',
    });
  });

  it('labels name the protocol that answered', () => {
    expect(outcomeLabel(grpcFailure(14, 'x'))).toBe('grpc_unavailable');
    expect(outcomeLabel(grpcFailure(8, 'x'))).toBe('grpc_resource_exhausted');
    expect(outcomeLabel({ kind: 'retryable', status: 503, message: 'HTTP 503' })).toBe('http_503');
    expect(outcomeLabel({ kind: 'retryable', timeoutMs: 10_000, message: 'timeout after 10 s' })).toBe('timeout');
    expect(outcomeLabel({ kind: 'retryable', message: 'ECONNREFUSED' })).toBe('network');
    expect(outcomeLabel({ kind: 'success', rejected: 0 })).toBe('success');
  });
});
