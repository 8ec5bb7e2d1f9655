import { BlockList, isIP } from 'node:net';
import { opt } from '../config/index.js';

/**
 * Networks an operator runs a federation on (Kubernetes cluster addresses, a compose network): peers there are
 * fetched from although their addresses are private, without dev mode and its other relaxations. Written as
 * CIDRs (`10.0.0.0/8`, `fd00::/8`) or single addresses.
 */
export interface PeerNetwork {
  network: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** A CIDR or an address as a network, or an Error saying why it is none. */
export function parsePeerNetwork(text: string): PeerNetwork {
  const [address = '', prefixText, extra] = text.trim().split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined)
    throw new Error('must be a CIDR such as 10.0.0.0/8 or fd00::/8, or an address');
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 1 && prefix <= bits)) throw new Error(`prefix length must be 1 to ${bits}`);
  return { network: address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The networks as one list to check addresses against (IPv4-mapped IPv6 addresses are judged by their IPv4 address). */
export function peerNetworkList(networks: readonly string[]): (address: string) => boolean {
  if (networks.length === 0) return () => false;
  const list = new BlockList();
  for (const text of networks) {
    const { network, prefix, family } = parsePeerNetwork(text);
    list.addSubnet(network, prefix, family);
  }
  return (address) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    const ip = mapped ? (mapped[1] as string) : address;
    return list.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4');
  };
}

/** `--allowed-peer-networks`, the same option in every service that fetches from peers (spread into its options). */
export function allowedPeerNetworksOption() {
  return {
    allowedPeerNetworks: opt.list({
      flag: 'allowed-peer-networks',
      validateItem: (item) => {
        try {
          parsePeerNetwork(item);
          return undefined;
        } catch (error) {
          return (error as Error).message;
        }
      },
      help: 'Networks (CIDRs, e.g. 10.0.0.0/8,fd00::/8) whose addresses peer fetches may reach without dev mode (key fetches, did:web documents, status lists, DID discovery), plain http included: a federation on a private network. Other private, loopback, link-local (169.254.169.254) and reserved addresses stay refused',
    }),
  };
}
