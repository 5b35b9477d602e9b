// A service that serves one stream, as the tests of hostile streams write it: the body as the
// session's only stream, then 404 for every later request and for every other path (an ended
// session, whose archive has nothing either).
import type { RequestListener } from 'node:http';

export function oneStream(body: string): RequestListener {
  let streams = 0;
  return (req, res) => {
    if (!req.url?.includes('/telemetry/stream') || streams++ > 0) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"code":"not_found","message":"gone"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  };
}
