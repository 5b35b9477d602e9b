// Node's http module, taken with process.getBuiltinModule() rather than `import … from 'node:http'`.
//
// Why: an ES import of a built-in module builds a namespace of every export, reading each one. On
// Node 22 and later node:http has lazy getters (WebSocket, CloseEvent, MessageEvent) whose first read
// loads Node's bundled undici: 13 MiB of RSS in every thread that imports node:http (the daemon's main
// thread and its ingest workers), for a WebSocket nothing here uses. Measured on Node 24.21 (a fresh
// process, RSS before and after): `await import('node:http')` +16.5 MiB,
// `process.getBuiltinModule('node:http')` +3.6 MiB; Node 20 had no such getters (+2.5).
// A test (test/integration/util/node-http.test.ts) fails if the daemon's entry point loads undici again.

const http = process.getBuiltinModule('node:http');

export const { Agent, createServer, request, STATUS_CODES } = http;
