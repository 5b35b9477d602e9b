// Why a server could not listen, as one line that says what to do (the devkit's simulate and
// receive commands): the flag to change rather than a stack trace from net.Server.listen.

/** `flag` names the option that chose the port (e.g. --port). */
export function listenProblem(err: unknown, host: string, port: number, flag: string): string {
  const e = err as NodeJS.ErrnoException;
  const text = `${e.code ?? ''} ${e.message}`;
  if (/EADDRINUSE|address already in use/i.test(text)) {
    return `${host}:${port} is already in use (another instance, a collector or another program?); choose another port with ${flag}, or 0 for any free port`;
  }
  if (/EACCES/.test(text)) return `not allowed to listen on ${host}:${port}; choose a port above 1023 with ${flag}`;
  if (/EADDRNOTAVAIL|ENOTFOUND|EAI_AGAIN/.test(text))
    return `${host} is not an address of this machine; use --host 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`;
  return `cannot listen on ${host}:${port}: ${e.message}`;
}
