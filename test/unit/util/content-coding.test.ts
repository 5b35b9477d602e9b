// An answer's content coding undone, never past the cap: what unpacks past it is cut, as a read
// past it is, whatever few bytes it came packed in.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeContentCoding } from '../../../src/util/content-coding.js';

const CAP = 64 * 1024;
const small = Buffer.from('{"partialSuccess":{}}');
const big = Buffer.alloc(CAP + 1, 'x');

describe('decodeContentCoding', () => {
  it.each([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ])('%s: a small answer decoded; one that unpacks past the cap is cut, with nothing kept', (coding, pack) => {
    expect(decodeContentCoding(pack(small), coding, CAP)).toEqual({ bytes: small, cut: false });
    expect(decodeContentCoding(pack(big), coding, CAP)).toEqual({ bytes: Buffer.alloc(0), cut: true });
  });

  it.each([
    ['no coding', undefined],
    ['identity', 'identity'],
    ['an unknown coding', 'zstd'],
    ['gzip that is not gzip', 'gzip'],
  ])('%s: the bytes as they came, not cut', (_name, coding) => {
    expect(decodeContentCoding(small, coding, CAP)).toEqual({ bytes: small, cut: false });
  });
});
