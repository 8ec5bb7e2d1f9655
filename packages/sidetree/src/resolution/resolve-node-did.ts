import { assertKnownAnchor } from '../did/known-anchor.js';
import type { ParsedNodeDid } from '../did/parse-node-did.js';
import { resolveOperations } from './resolve-operations.js';
import type { ResolutionInput, ResolutionModel, ResolveOptions } from './types.js';

export interface ResolveNodeDidOptions extends ResolveOptions {
  /**
   * The suffix's anchors for the CID check (hashes or hashlinks). Defaults to the anchors of the published
   * operations given, which are exactly the anchors that carry an operation of this DID.
   */
  anchorHashes?: readonly string[];
}

/**
 * Resolves a parsed did:node identifier the way the node answers `GET /identifiers/<did>`: the long form's
 * initial state joins as an unpublished create (a published create wins), then the anchor hash the DID
 * names must be the canonical one or an earlier anchor of the suffix (not_found otherwise, as orb answers).
 *
 * ```ts
 * const did = parseNodeDid(requested, { aliases });
 * const model = resolveNodeDid(did, { published, unpublished }, { versionId });
 * const result = renderNodeResolution(model, { did, domain });
 * ```
 */
export function resolveNodeDid(
  did: ParsedNodeDid,
  input: Omit<ResolutionInput, 'longFormCreate'>,
  options: ResolveNodeDidOptions = {},
): ResolutionModel {
  const { anchorHashes, ...resolveOptions } = options;
  const model = resolveOperations(did.suffix, { ...input, longFormCreate: did.longFormCreate }, resolveOptions);
  assertKnownAnchor(
    did,
    model.canonicalReference,
    anchorHashes ?? (input.published ?? []).map((record) => record.anchor.canonicalReference),
  );
  return model;
}
