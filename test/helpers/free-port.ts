// A loopback port nothing listens on (yet): the kernel picks one, the listener closes, the port is
// handed to the process under test. Another process may take it meanwhile; tests on one machine
// have not met that, and the kernel does not hand the same port out again at once.
import { createServer, type AddressInfo } from 'node:net';

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', resolve);
  });
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}
