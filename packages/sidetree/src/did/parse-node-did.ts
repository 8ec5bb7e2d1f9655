import { decodeMultibaseMultihash, parseHashlink, SHA2_256, UNPUBLISHED_ANCHOR } from '@anchor/common/encoding';
import { AppError, badRequest } from '@anchor/common/errors';
import { checkEncodedMultihash } from '../hashing.js';
import type { CreateOperation } from '../operations/types.js';
import { DID_NODE_PROTOCOL, type ProtocolParameters } from '../protocol.js';
import { decodeDomain, DEFAULT_NAMESPACE } from './did-forms.js';
import { decodesToJsonObject, parseInitialState } from './long-form.js';

/** What sits between the namespace and the suffix. */
export type DidHint =
  | { kind: 'unpublished' }
  | { kind: 'canonical'; anchorHash: string }
  | { kind: 'hashlink'; anchorHash: string; hashlink: string; links: string[] }
  | { kind: 'https'; domain: string; anchorHash: string | undefined };

export interface ParsedNodeDid {
  /** The identifier exactly as given. */
  did: string;
  /** The configured namespace (an alias is reported under it). */
  namespace: string;
  suffix: string;
  hint: DidHint;
  /** The anchor hash the DID names, if any (none for `uAAA`). */
  anchorHash: string | undefined;
  /** The identifier without its long-form segment. */
  shortForm: string;
  /** The create operation a long-form DID carries. */
  longFormCreate: CreateOperation | undefined;
}

export interface NodeDidOptions {
  /** Defaults to `did:node`. */
  namespace?: string;
  /** Other namespaces accepted as the same method (e.g. a legacy `did:orb`). */
  aliases?: readonly string[];
  /** Validates the suffix and a long form's initial state; defaults to the did:node profile. */
  protocol?: ProtocolParameters;
}

/**
 * Parses every did:node form (see `did-forms.ts`). The last segment is long-form data only if it decodes
 * from base64url to a JSON object; the suffix is then the segment before it. At least a hint and a suffix
 * must follow the namespace. Errors are AppError bad_request naming the problem.
 *
 * ```ts
 * const { suffix, anchorHash, longFormCreate } = parseNodeDid('did:node:uAAA:EiB...', { aliases: ['did:orb'] });
 * ```
 */
export function parseNodeDid(did: string, options: NodeDidOptions = {}): ParsedNodeDid {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const protocol = options.protocol ?? DID_NODE_PROTOCOL;
  if (typeof did !== 'string') throw badRequest('DID must be a string');
  const prefix = [namespace, ...(options.aliases ?? [])]
    .map((ns) => `${ns}:`)
    .find((candidate) => did.startsWith(candidate));
  if (!prefix) throw badRequest(`'${did}' is not a ${namespace} DID`);

  const parts = did.slice(prefix.length).split(':');
  let longFormSegment: string | undefined;
  const last = parts.at(-1) as string;
  if (parts.length >= 3 && decodesToJsonObject(last)) {
    longFormSegment = last;
    parts.pop();
  }
  if (parts.length < 2)
    throw badRequest(`DID '${did}' needs an anchor hash (or ${UNPUBLISHED_ANCHOR}) before the suffix`);
  const suffix = parts.pop() as string;
  try {
    checkEncodedMultihash(suffix, 'DID suffix', protocol);
  } catch (error) {
    if (error instanceof AppError) throw badRequest(`DID '${did}' has an invalid suffix: ${error.message}`);
    throw error;
  }
  const hint = parseHint(parts, did);
  return {
    did,
    namespace,
    suffix,
    hint,
    anchorHash: hint.kind === 'unpublished' ? undefined : hint.anchorHash,
    shortForm: longFormSegment === undefined ? did : did.slice(0, did.length - longFormSegment.length - 1),
    longFormCreate: longFormSegment === undefined ? undefined : parseInitialState(longFormSegment, suffix, protocol),
  };
}

function parseHint(parts: string[], did: string): DidHint {
  const [first, ...rest] = parts as [string, ...string[]];
  if (rest.length === 0) {
    if (first === UNPUBLISHED_ANCHOR) return { kind: 'unpublished' };
    return { kind: 'canonical', anchorHash: checkAnchorHash(first, did) };
  }
  if (first === 'hl' && (rest.length === 1 || rest.length === 2)) {
    const hashlink = `hl:${rest.join(':')}`;
    let links: string[];
    try {
      links = parseHashlink(hashlink).links;
    } catch (error) {
      throw badRequest(`DID '${did}' has an invalid hashlink: ${(error as Error).message}`);
    }
    return { kind: 'hashlink', anchorHash: checkAnchorHash(rest[0] as string, did), hashlink, links };
  }
  if (first === 'https' && rest.length === 2) {
    const [domain, anchor] = rest as [string, string];
    if (domain.length === 0) throw badRequest(`DID '${did}' has an empty https domain`);
    return {
      kind: 'https',
      domain: decodeDomain(domain),
      anchorHash: anchor === UNPUBLISHED_ANCHOR ? undefined : checkAnchorHash(anchor, did),
    };
  }
  throw badRequest(`DID '${did}' has an unsupported hint '${parts.join(':')}'`);
}

/** An anchor hash is `u` + base64url of a SHA2-256 multihash (`uEi…`). */
function checkAnchorHash(text: string, did: string): string {
  try {
    const { code, digest } = decodeMultibaseMultihash(text);
    if (!text.startsWith('u') || code !== SHA2_256 || digest.length !== 32)
      throw new TypeError('not a multibase SHA2-256 multihash');
  } catch (error) {
    throw badRequest(`DID '${did}' has an invalid anchor hash '${text}': ${(error as Error).message}`);
  }
  return text;
}
