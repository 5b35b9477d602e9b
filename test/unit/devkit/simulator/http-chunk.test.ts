import { describe, expect, it } from 'vitest';
import type { Socket } from 'node:net';
import {
  chunkHeadLength,
  httpChunk,
  writeChunkHead,
  writeHttpChunk,
} from '../../../../src/devkit/simulator/http-chunk.js';

describe('httpChunk', () => {
  it.each([
    { name: 'one part', parts: ['id: 1\ndata: {}\n\n'], wire: '10\r\nid: 1\ndata: {}\n\n\r\n' },
    { name: 'several parts, one chunk', parts: ['ab', 'c', 'defghijklmnop'], wire: '10\r\nabcdefghijklmnop\r\n' },
    { name: 'size in bytes, not characters', parts: ['🚀ü'], wire: '6\r\n🚀ü\r\n' },
    { name: 'a size of several hex digits', parts: ['x'.repeat(4096)], wire: `1000\r\n${'x'.repeat(4096)}\r\n` },
  ])('$name', ({ parts, wire }) => {
    const buffers = parts.map((p) => Buffer.from(p));
    const bytes = buffers.reduce((n, b) => n + b.length, 0);
    expect(httpChunk(buffers, bytes).toString()).toBe(wire);
  });
});

describe('writeHttpChunk', () => {
  it.each([
    { name: 'one frame: one write of one Buffer', parts: ['id: 1\ndata: {}\n\n'], writes: 1, corked: false },
    {
      name: 'a batch: size line, frames, CRLF in one cork',
      parts: ['id: 1\n\n', 'id: 2\n\n', 'ü'],
      writes: 5,
      corked: true,
    },
  ])('$name, the same bytes as httpChunk', ({ parts, writes, corked }) => {
    const written: Buffer[] = [];
    let corks = 0;
    const socket = {
      cork: () => corks++,
      uncork: () => corks--,
      write: (b: Buffer) => {
        expect(corks > 0).toBe(corked);
        written.push(b);
        return true;
      },
    } as unknown as Socket;
    const buffers = parts.map((p) => Buffer.from(p));
    const bytes = buffers.reduce((n, b) => n + b.length, 0);
    expect(writeHttpChunk(socket, buffers, bytes)).toBe(true);
    expect(written).toHaveLength(writes);
    expect(corks).toBe(0);
    expect(Buffer.concat(written).equals(httpChunk(buffers, bytes))).toBe(true);
  });
});

describe('writeChunkHead', () => {
  it.each([1, 9, 15, 16, 255, 256, 4095, 4096, 65_535, 65_536, 1_048_576, 123_456_789])(
    '%i: the size line Node writes, and chunkHeadLength its length',
    (size) => {
      const target = Buffer.alloc(16, 0x2e);
      const length = writeChunkHead(target, 3, size);
      expect(target.toString('latin1', 3, 3 + length)).toBe(size.toString(16) + '\r\n');
      expect(length).toBe(chunkHeadLength(size));
      // Nothing written outside it.
      expect(target.toString('latin1', 0, 3) + target.toString('latin1', 3 + length)).toBe('.'.repeat(16 - length));
    },
  );
});
