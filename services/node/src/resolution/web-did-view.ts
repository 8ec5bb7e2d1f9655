import { badRequest, notFound } from '@anchor/common/errors';
import { decodeDomain, encodeDomain, unpublishedDid, type DidResolutionResult } from '@anchor/sidetree';
import type { ResolutionService } from './resolution-service.js';

const WEB_SCID = /^did:web:([^:]+):scid:([^:]+)$/;

export interface WebDidViewOptions {
  /** `host[:port]` of this node. */
  host: string;
  /** Further hosts whose `did:web:<host>:scid:<suffix>` this node answers (`--allowed-did-web-domains`). */
  allowedDomains: readonly string[];
}

/**
 * The did:web view of a did:node DID (orb.md §2.9, Orb's webresolver): `did:web:<host>:scid:<suffix>`
 * is this node's document of `did:node:uAAA:<suffix>` (published or not) with every occurrence of the
 * did:node id replaced by the did:web id, and `alsoKnownAs` naming the did:node identifiers (the canonical
 * id, or the `uAAA` id before publication, then the equivalent ids). Deactivated DIDs are not found.
 */
export class WebDidView {
  private readonly hosts: Set<string>;

  constructor(
    private readonly resolution: ResolutionService,
    options: WebDidViewOptions,
  ) {
    this.hosts = new Set([options.host, ...options.allowedDomains].map((host) => host.toLowerCase()));
  }

  /** `did:web:<host %3A-encoded>:scid:<suffix>` for this node. */
  static didFor(host: string, suffix: string): string {
    return `did:web:${encodeDomain(host)}:scid:${suffix}`;
  }

  isWebDid(did: string): boolean {
    return did.startsWith('did:web:');
  }

  async resolve(webDid: string): Promise<DidResolutionResult> {
    const match = WEB_SCID.exec(webDid);
    if (!match) throw badRequest(`'${webDid}' is not a did:web:<host>:scid:<suffix> identifier`);
    const host = decodeDomain(match[1] as string).toLowerCase();
    if (!this.hosts.has(host)) throw badRequest(`did:web host '${host}' is not served by this node`);
    return this.view(webDid, match[2] as string);
  }

  /** The view for `/scid/<suffix>/did.json` (this node's own host). */
  async resolveSuffix(suffix: string, host: string): Promise<DidResolutionResult> {
    return this.view(WebDidView.didFor(host, suffix), suffix);
  }

  private async view(webDid: string, suffix: string): Promise<DidResolutionResult> {
    const nodeDid = unpublishedDid(suffix, this.resolution.namespace);
    // A suffix that is not a valid multihash is a malformed request, reported by the did:node parser.
    this.resolution.parse(nodeDid);
    const { result } = await this.resolution.resolve(nodeDid);
    const metadata = result.didDocumentMetadata;
    if (metadata.deactivated === true) throw notFound(`${webDid} is deactivated`);

    const document = JSON.parse(JSON.stringify(result.didDocument).replaceAll(nodeDid, webDid)) as Record<
      string,
      unknown
    >;
    const canonicalId = typeof metadata.canonicalId === 'string' ? metadata.canonicalId : nodeDid;
    const equivalentIds = Array.isArray(metadata.equivalentId)
      ? metadata.equivalentId.filter((id): id is string => typeof id === 'string')
      : [];
    const existing = Array.isArray(document.alsoKnownAs)
      ? (document.alsoKnownAs as unknown[]).filter((id): id is string => typeof id === 'string')
      : [];
    const alsoKnownAs: string[] = [];
    for (const id of [...existing.map((id) => (id === webDid ? canonicalId : id)), canonicalId, ...equivalentIds]) {
      if (!alsoKnownAs.includes(id)) alsoKnownAs.push(id);
    }
    document.alsoKnownAs = alsoKnownAs;
    return { '@context': result['@context'], didDocument: document, didDocumentMetadata: metadata };
  }
}
