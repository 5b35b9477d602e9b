// The standalone receiver (src/devkit/receiver/main.ts) as a person runs it: a real child process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGrpcTransport } from '../../../../src/export/grpc-transport.js';
import { createRecordEncoder } from '../../../../src/wire/encode-record.js';
import { createRequestBuilder } from '../../../../src/wire/otlp-request.js';
import { sourceEntry } from '../../../helpers/compiled-sources.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const children: ChildProcessWithoutNullStreams[] = [];

function startStandalone(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [...sourceEntry('devkit/receiver/main.ts'), ...args], { cwd: repoRoot });
  children.push(child);
  return child;
}

/** Resolves with the first match of `pattern` in the stream's accumulated text. */
function waitForOutput(stream: NodeJS.ReadableStream, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      const match = text.match(pattern);
      if (match) {
        stream.off('data', onData);
        resolve(match);
      }
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`stream ended without ${String(pattern)}; got: ${text}`)));
  });
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('standalone receiver', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('prints one JSON line per record and exits 0 on %s', async (signal) => {
    const child = startStandalone(['--port', '0']);
    const [, logsUrl] = await waitForOutput(child.stderr, /listening on (http:\/\/\S+\/v1\/logs)/);
    const body = JSON.stringify({
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'by-hand' } }] },
          scopeLogs: [
            {
              scope: { name: 'curl' },
              logRecords: [
                { timeUnixNano: '1732100000123456000', eventName: 'first', body: { intValue: '9007199254740993' } },
                { eventName: 'second' },
              ],
            },
          ],
        },
      ],
    });
    const lines = waitForOutput(child.stdout, /^(.*)\n(.*)\n/);
    const res = await fetch(logsUrl ?? '', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    const [, first, second] = await lines;
    expect(JSON.parse(first ?? '')).toMatchObject({
      resource: { 'service.name': 'by-hand' },
      scope: { name: 'curl' },
      timeUnixNano: '1732100000123456000',
      eventName: 'first',
      body: '9007199254740993',
    });
    expect(JSON.parse(second ?? '')).toMatchObject({ eventName: 'second' });

    const exited = exitOf(child);
    child.kill(signal);
    expect(await exited).toBe(0);
  });

  it('exits 2 with usage on a bad argument', async () => {
    const child = startStandalone(['--port', 'many']);
    const usage = waitForOutput(child.stderr, /usage: receive/);
    expect(await exitOf(child)).toBe(2);
    await usage;
  });

  it('--grpc also accepts OTLP/gRPC on its own port and prints what arrives there', async () => {
    const child = startStandalone(['--port', '0', '--grpc-port', '0']);
    const [, grpcUrl] = await waitForOutput(child.stderr, /OTLP\/gRPC logs receiver listening on (http:\/\/\S+)/);
    const transport = createGrpcTransport({
      url: grpcUrl!,
      headers: {},
      compression: 'gzip',
      timeoutMs: 5000,
      userAgent: 'test',
    });
    const requests = createRequestBuilder('grpc', {
      resource: { 'service.name': 'by-grpc' },
      scope: { name: 's', version: '1' },
    });
    const record = createRecordEncoder()({
      tsMicros: 1,
      observedMicros: 1,
      eventName: 'browser.console_log',
      severityNumber: 9,
      severityText: 'INFO',
      body: 'hi',
      attributes: {},
    });
    const line = waitForOutput(child.stdout, /^(.*)\n/);
    expect(await transport.send(requests.build([record]), '')).toEqual({ kind: 'success', rejected: 0 });
    await transport.close();
    expect(JSON.parse((await line)[1] ?? '')).toMatchObject({
      resource: { 'service.name': 'by-grpc' },
      eventName: 'browser.console_log',
      body: 'hi',
    });
    const exited = exitOf(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('a port in use is one line that says what to do, not a stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = String((blocker.address() as AddressInfo).port);
    try {
      for (const args of [
        ['--port', port],
        ['--port', '0', '--grpc-port', port],
      ]) {
        const child = startStandalone(args);
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        expect(await exitOf(child)).toBe(1);
        const flag = args.includes('--grpc-port') ? '--grpc-port' : '--port';
        expect(err.trim()).toBe(
          `receive: 127.0.0.1:${port} is already in use (another instance, a collector or another program?); choose another port with ${flag}, or 0 for any free port`,
        );
      }
    } finally {
      blocker.close();
    }
  });
});
