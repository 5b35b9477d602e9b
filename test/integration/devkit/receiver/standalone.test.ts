// The standalone receiver (src/devkit/receiver/main.ts) as a person runs it: a real child process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const children: ChildProcessWithoutNullStreams[] = [];

function startStandalone(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/devkit/receiver/main.ts', ...args], { cwd: repoRoot });
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
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
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
    const usage = waitForOutput(child.stderr, /usage: receiver/);
    expect(await exitOf(child)).toBe(2);
    await usage;
  });
});
