/**
 * Loaded with `node --import` into a service under fuzzing. Generated requests name arbitrary hosts (actors to
 * follow, inboxes, did:web hosts, log URLs), and the service acts on some of them, but a fuzz run must send
 * nothing beyond this machine's loopback: every name lookup other than `localhost` and every TCP connection
 * to an address outside 127.0.0.0/8 and ::1 fails at once, as an unknown host would, before any packet leaves.
 */
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const isLoopbackAddress = (address) =>
  net.isIPv4(address)
    ? address.startsWith('127.')
    : address === '::1' || address.toLowerCase().startsWith('::ffff:127.');
const isLoopbackHost = (host) => {
  const bare = String(host).replace(/^\[|\]$/g, '');
  return net.isIP(bare) ? isLoopbackAddress(bare) : bare.toLowerCase() === 'localhost';
};
const refusal = (host) =>
  Object.assign(new Error(`getaddrinfo ENOTFOUND ${host} (fuzzing: loopback only)`), {
    code: 'ENOTFOUND',
    hostname: host,
  });

const lookup = dns.lookup;
dns.lookup = function loopbackLookup(hostname, options, callback) {
  if (isLoopbackHost(hostname)) return lookup.call(this, hostname, options, callback);
  process.nextTick(typeof options === 'function' ? options : callback, refusal(hostname));
  return {};
};
const promisesLookup = dns.promises.lookup;
dns.promises.lookup = async function loopbackPromisesLookup(hostname, options) {
  if (isLoopbackHost(hostname)) return promisesLookup.call(this, hostname, options);
  throw refusal(hostname);
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function loopbackConnect(...args) {
  const [first] = Array.isArray(args[0]) ? args[0] : args;
  const options =
    first !== null && typeof first === 'object'
      ? first
      : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  // A truthy path is a Unix socket, as node reads it (HTTP agents pass path: null).
  if (!options.path && !isLoopbackHost(options.host ?? 'localhost')) {
    process.nextTick(() => this.destroy(refusal(options.host)));
    return this;
  }
  return connect.apply(this, args);
};

syncBuiltinESMExports();
