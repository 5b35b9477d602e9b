import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { otlpSchema, protoDir } from '../../../../src/devkit/receiver/otlp-schema.js';
import { findPackageRoot } from '../../../../src/devkit/receiver/package-root.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

describe('package root and proto files', () => {
  it('finds the package root from a source file and from a would-be dist/ file', () => {
    expect(findPackageRoot()).toBe(repoRoot);
    expect(findPackageRoot(pathToFileURL(path.join(repoRoot, 'dist/devkit/receiver/server.js')).href)).toBe(repoRoot);
  });

  it('fails clearly when no package.json is above', () => {
    expect(() => findPackageRoot('file:///no-such-dir/x.js')).toThrow(/no package.json found/);
  });

  it('ships the proto files with the package', () => {
    expect(protoDir()).toBe(path.join(repoRoot, 'proto'));
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('proto');
    expect(existsSync(path.join(protoDir(), 'opentelemetry/proto/logs/v1/logs.proto'))).toBe(true);
  });
});

describe('schema', () => {
  it('is loaded once and has OTLP v1 field numbers', () => {
    const schema = otlpSchema();
    expect(otlpSchema()).toBe(schema);
    const logRecord = schema.exportLogsRequest.root.lookupType('opentelemetry.proto.logs.v1.LogRecord');
    const ids = Object.fromEntries(Object.values(logRecord.fields).map((f) => [f.name, [f.id, f.type]]));
    expect(ids).toStrictEqual({
      timeUnixNano: [1, 'fixed64'],
      observedTimeUnixNano: [11, 'fixed64'],
      severityNumber: [2, 'SeverityNumber'],
      severityText: [3, 'string'],
      body: [5, 'opentelemetry.proto.common.v1.AnyValue'],
      attributes: [6, 'opentelemetry.proto.common.v1.KeyValue'],
      droppedAttributesCount: [7, 'uint32'],
      flags: [8, 'fixed32'],
      traceId: [9, 'bytes'],
      spanId: [10, 'bytes'],
      eventName: [12, 'string'],
    });
    expect(schema.severityNumbers['SEVERITY_NUMBER_FATAL4']).toBe(24);
  });
});
