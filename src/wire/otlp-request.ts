// Builds the body of one OTLP/HTTP logs request from spooled record payloads. The resource and the
// instrumentation scope are encoded once per process; a request is
//   ExportLogsServiceRequest{ resource_logs(1): ResourceLogs{ resource(1), scope_logs(2):
//     ScopeLogs{ scope(1), log_records(2)… } } }
// where the log_records are the spooled payloads as they are (they are framed as field 2 already).
// The protobuf body is handed out as chunks, the framing (computed from the payloads' lengths) and
// then the payloads themselves (store/pending-segments.ts: mostly views into an ingest worker's
// batch, else a session's records joined once when sealed); joining them again for every request
// cost the main thread a copy of every byte it delivers and the garbage of a large buffer per request.
// For http/json the framed protobuf records are transcoded to OTLP/JSON here (record-json.ts).
// Spans (/v1/traces) are built the same way from framed spans (encode-span.ts, span-json.ts).
import type { OtlpProtocol } from '../config/schema.js';
import { encodeResource, encodeScope } from './encode-record.js';
import { varintSize, writeVarint } from './proto-writer.js';
import { recordToJson } from './record-json.js';
import { spanToJson } from './span-json.js';

/**
 * A request body as the chunks it is written from, in order (never joined here): its length is the
 * sum of theirs. The chunks may be the spooled payloads themselves: a reader must not change them.
 */
export type RequestBody = readonly Buffer[];

export interface RequestBuilder {
  readonly contentType: string;
  /** One request body carrying every record of `payloads` (each a run of framed records). */
  build(payloads: readonly Buffer[]): RequestBody;
}

/** Bytes of a request body. */
export function bodyBytes(body: RequestBody): number {
  let n = 0;
  for (const c of body) n += c.length;
  return n;
}

/** A request body as one buffer (a copy unless it is one chunk): for a sender that takes nothing else. */
export function joinBody(body: RequestBody): Buffer {
  return body.length === 1 ? body[0]! : Buffer.concat(body);
}

export interface ResourceScope {
  resource: Record<string, string>;
  scope: { name: string; version: string };
}

/** Which OTLP signal a request carries: log records (/v1/logs) or spans (/v1/traces). */
export type Signal = 'logs' | 'traces';

/**
 * The builder for one signal. ExportTraceServiceRequest has the logs request's shape and field
 * numbers (resource_spans 1 → resource 1, scope_spans 2 → scope 1, spans 2), so protobuf requests
 * of both signals are built alike from their framed payloads; only OTLP/JSON names differ.
 */
export function createRequestBuilder(
  protocol: OtlpProtocol,
  rs: ResourceScope,
  signal: Signal = 'logs',
): RequestBuilder {
  return protocol === 'http/json' ? jsonBuilder(rs, signal) : protobufBuilder(rs);
}

function protobufBuilder(rs: ResourceScope): RequestBuilder {
  const resource = encodeResource(rs.resource);
  const scope = encodeScope(rs.scope.name, rs.scope.version);
  const resourceField = 1 + varintSize(resource.length) + resource.length;
  const scopeField = 1 + varintSize(scope.length) + scope.length;
  return {
    contentType: 'application/x-protobuf',
    build(payloads) {
      let records = 0;
      for (const p of payloads) records += p.length;
      const scopeLogs = scopeField + records;
      const resourceLogs = resourceField + 1 + varintSize(scopeLogs) + scopeLogs;
      const head = Buffer.allocUnsafe(
        1 + varintSize(resourceLogs) + resourceField + 1 + varintSize(scopeLogs) + scopeField,
      );
      let p = 0;
      head[p++] = 0x0a;
      p = writeVarint(head, p, resourceLogs);
      head[p++] = 0x0a;
      p = writeVarint(head, p, resource.length);
      p += resource.copy(head, p);
      head[p++] = 0x12;
      p = writeVarint(head, p, scopeLogs);
      head[p++] = 0x0a;
      p = writeVarint(head, p, scope.length);
      scope.copy(head, p);
      const body = new Array<Buffer>(payloads.length + 1);
      body[0] = head;
      for (let i = 0; i < payloads.length; i++) body[i + 1] = payloads[i]!;
      return body;
    },
  };
}

const JSON_NAMES = {
  logs: { resource: 'resourceLogs', scope: 'scopeLogs', items: 'logRecords', transcode: recordToJson },
  traces: { resource: 'resourceSpans', scope: 'scopeSpans', items: 'spans', transcode: spanToJson },
} as const satisfies Record<Signal, { resource: string; scope: string; items: string; transcode: unknown }>;

function jsonBuilder(rs: ResourceScope, signal: Signal): RequestBuilder {
  const names = JSON_NAMES[signal];
  const attributes = Object.entries(rs.resource).map(([key, value]) => ({ key, value: { stringValue: value } }));
  const prefix = `{"${names.resource}":[{"resource":${JSON.stringify({ attributes, droppedAttributesCount: 0 })},"${names.scope}":[{"scope":${JSON.stringify(rs.scope)},"${names.items}":[`;
  const suffix = ']}]}]}';
  return {
    contentType: 'application/json',
    build(payloads) {
      const parts: string[] = [];
      for (const p of payloads) names.transcode(p, parts);
      return [Buffer.from(prefix + parts.join(',') + suffix, 'utf8')];
    },
  };
}
