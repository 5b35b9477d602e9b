// A minimal OTLP/HTTP sink for the benchmark: answers 200 to every POST and counts bytes. The real
// receiver decodes with protobufjs (tens of thousands of records/s) and would measure itself,
// not the bridge; correctness of what is sent is the integration tests' job.
import { createServer } from 'node:http';

let bytes = 0;
let requests = 0;
const server = createServer((req, res) => {
  req.on('data', (c: Buffer) => (bytes += c.length));
  req.on('end', () => {
    requests++;
    res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/x-protobuf' });
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const a = server.address();
  if (a && typeof a === 'object') process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${a.port}` }) + '\n');
});
process.on('SIGTERM', () => {
  process.stderr.write(JSON.stringify({ requests, bytes }) + '\n');
  process.exit(0);
});
