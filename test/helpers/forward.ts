// A front between the bridge and the simulator in tests that put something in the way (a key check,
// a broken archive): it passes a request on as it came, and answers with what the simulator says.
import { request, type IncomingMessage, type ServerResponse } from 'node:http';

/** Passes `req` to `to` (with `headers` instead of its own) and pipes the answer back to `res`. */
export function forward(req: IncomingMessage, res: ServerResponse, to: URL, headers = req.headers): void {
  const out = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
    // A stream the simulator resets is reset here too, not left open and silent.
    answer.on('close', () => {
      if (!answer.complete) res.destroy();
    });
  });
  out.on('error', () => res.destroy());
  res.on('close', () => out.destroy());
  req.pipe(out);
}
