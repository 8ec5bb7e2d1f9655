import net from 'node:net';

/**
 * A port that was free on loopback a moment ago, for a service that must be told its port up front.
 * (Prefer port 0 where the service reports the port it bound.)
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
