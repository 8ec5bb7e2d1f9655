import { badRequest, transient } from '@anchor/common/errors';
import { DID_NODE_PROTOCOL, type ProtocolParameters } from './protocol.js';

/**
 * The did:node protocol versions a node may run, by the names Orb's `--sidetree-protocol-versions`
 * takes. A version is identified on the wire by its genesis time (`protocolVersion`): the anchor linkset's
 * profile names it (`https://w3id.org/orb#v<genesis time>`, as Orb's generators do), operations
 * anchored under it carry it, and an anchor is read under the version its profile names, so an anchor
 * written before a switch keeps its rules after it.
 */

/** Orb's `test` version: its limits differ from v1.0's (smaller operations and deltas, no P-384). */
export const DID_NODE_TEST_PROTOCOL: ProtocolParameters = Object.freeze({
  ...DID_NODE_PROTOCOL,
  name: 'did:node test',
  protocolVersion: 777,
  maxOperationSize: 1700,
  maxDeltaSize: 1500,
  keyCurves: Object.freeze(['Ed25519', 'P-256', 'secp256k1']),
});

/** The names `--sidetree-protocol-versions` takes. */
export const PROTOCOL_VERSION_NAMES = ['1.0', 'test'] as const;

export const PROTOCOL_VERSIONS: Readonly<Record<(typeof PROTOCOL_VERSION_NAMES)[number], ProtocolParameters>> =
  Object.freeze({
    '1.0': DID_NODE_PROTOCOL,
    test: DID_NODE_TEST_PROTOCOL,
  });

function named(name: string): ProtocolParameters {
  if (!Object.hasOwn(PROTOCOL_VERSIONS, name))
    throw badRequest(`unknown protocol version '${name}' (known: ${PROTOCOL_VERSION_NAMES.join(', ')})`);
  return PROTOCOL_VERSIONS[name as (typeof PROTOCOL_VERSION_NAMES)[number]];
}

/** The version of that genesis time among all known ones (what a worker thread, which has no registry, looks up). */
export function protocolOfVersion(protocolVersion: number): ProtocolParameters | undefined {
  return Object.values(PROTOCOL_VERSIONS).find((protocol) => protocol.protocolVersion === protocolVersion);
}

const PROFILE_PREFIX = 'https://w3id.org/orb#v';

/** The anchor linkset profile of a version: `https://w3id.org/orb#v0` for v1.0. */
export function anchorProfile(protocol: ProtocolParameters): string {
  return `${PROFILE_PREFIX}${protocol.protocolVersion}`;
}

/** The genesis time an anchor profile names, or undefined when it is not a did:node anchor profile. */
export function profileVersion(profile: string): number | undefined {
  if (!profile.startsWith(PROFILE_PREFIX)) return undefined;
  const digits = profile.slice(PROFILE_PREFIX.length);
  return /^(0|[1-9]\d{0,15})$/.test(digits) ? Number(digits) : undefined;
}

/**
 * The versions one node runs: `current` validates what it accepts and writes its anchors; every listed
 * version reads anchors that name it.
 *
 * ```ts
 * const protocols = ProtocolRegistry.of(['1.0', 'test'], 'test');
 * protocols.current.maxOperationSize;                // 1700
 * protocols.forAnchor(profileVersion(profile)!);     // the rules an anchor was written under
 * ```
 */
export class ProtocolRegistry {
  private readonly byGenesis: ReadonlyMap<number, ProtocolParameters>;

  private constructor(
    readonly names: readonly string[],
    readonly current: ProtocolParameters,
  ) {
    this.byGenesis = new Map(names.map((name) => [named(name).protocolVersion, named(name)]));
  }

  /** The listed versions (each once), `current` one of them; without `current`, the one of latest genesis time. */
  static of(names: readonly string[], current?: string): ProtocolRegistry {
    if (names.length === 0)
      throw badRequest(`at least one protocol version is needed (known: ${PROTOCOL_VERSION_NAMES.join(', ')})`);
    for (const name of names) named(name);
    if (new Set(names).size !== names.length) throw badRequest(`protocol versions listed twice: ${names.join(', ')}`);
    const chosen =
      current ??
      names.reduce((latest, name) => (named(name).protocolVersion > named(latest).protocolVersion ? name : latest));
    if (!names.includes(chosen))
      throw badRequest(`the current protocol version '${chosen}' is not among the versions run (${names.join(', ')})`);
    return new ProtocolRegistry([...names], named(chosen));
  }

  /** Whether this node reads anchors of that genesis time. */
  supports(protocolVersion: number): boolean {
    return this.byGenesis.has(protocolVersion);
  }

  /**
   * The rules of an anchor that names this genesis time. An anchor of a version this node does not run is
   * a retryable refusal: once the node runs it (an upgrade), the anchor is read.
   */
  forAnchor(protocolVersion: number): ProtocolParameters {
    const protocol = this.byGenesis.get(protocolVersion);
    if (protocol === undefined) {
      throw transient(
        `the anchor was written under protocol version ${protocolVersion}, which this node does not run (it runs ${this.names.join(', ')})`,
      );
    }
    return protocol;
  }

  /** The rules an anchored or accepted operation carries (unknown versions read as the current one's). */
  forOperation(protocolVersion: number | undefined): ProtocolParameters {
    return (protocolVersion === undefined ? undefined : this.byGenesis.get(protocolVersion)) ?? this.current;
  }
}
