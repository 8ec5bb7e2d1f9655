import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Ports below this are left to the machine's own services. */
const LOWEST_PORT = 20_000;
const FALLBACK_EPHEMERAL_LOW = 32_768;

/**
 * Where the kernel's ephemeral range starts. Every outgoing connection on the machine takes its local port from
 * that range, so a port picked there can be taken by a client socket between the pick and the listen.
 */
export function ephemeralRangeStart(rangeFile = '/proc/sys/net/ipv4/ip_local_port_range'): number {
  try {
    const low = Number(readFileSync(rangeFile, 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST_PORT + 1_000 ? low : FALLBACK_EPHEMERAL_LOW;
  } catch {
    return FALLBACK_EPHEMERAL_LOW;
  }
}

const handedOut = new Set<number>();
let kernelEphemeralStart: number | undefined;

function canBind(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The first of `count` consecutive loopback ports that were free a moment ago, for a service that must be told its
 * port up front (a federation numbers its nodes' ports from the first). Prefer port 0 where the service reports
 * the port it bound.
 *
 * Picked below the ephemeral range, from a random start so parallel test processes rarely meet, checked by
 * binding, and never handed out twice by one process.
 */
export async function freePortRun(count: number, host = '127.0.0.1'): Promise<number> {
  const high = (kernelEphemeralStart ??= ephemeralRangeStart());
  const span = high - count - LOWEST_PORT;
  const start = Math.floor(Math.random() * span);
  for (let step = 0; step < span; step++) {
    const base = LOWEST_PORT + ((start + step) % span);
    let free = true;
    for (let port = base; port < base + count && free; port++)
      free = !handedOut.has(port) && (await canBind(port, host));
    if (free) {
      for (let port = base; port < base + count; port++) handedOut.add(port);
      return base;
    }
  }
  throw new Error(`no ${count} consecutive free ports on ${host} between ${LOWEST_PORT} and ${high - 1}`);
}

/** One port, as {@link freePortRun} picks them. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return freePortRun(1, host);
}
