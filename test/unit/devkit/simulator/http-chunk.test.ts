import { describe, expect, it } from 'vitest';
import type { Socket } from 'node:net';
import { httpChunk, writeHttpChunk } from '../../../../src/devkit/simulator/http-chunk.js';

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
