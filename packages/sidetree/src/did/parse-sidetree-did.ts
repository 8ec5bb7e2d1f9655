import { AppError, badRequest } from '@anchor/common/errors';
import { checkEncodedMultihash } from '../hashing.js';
import type { CreateOperation } from '../operations/types.js';
import { DIF_PROTOCOL, type ProtocolParameters } from '../protocol.js';
import { parseInitialState } from './long-form.js';

/**
 * Plain Sidetree identifiers as the DIF spec and ION write them: `did:<method>:<suffix>` and the long form
 * `did:<method>:<suffix>:<initial state>`, without did:node's anchor hints. Used with the DIF profile.
 */
export interface ParsedSidetreeDid {
  did: string;
  namespace: string;
  suffix: string;
  shortForm: string;
  longFormCreate: CreateOperation | undefined;
}

export function parseSidetreeDid(
  did: string,
  options: { namespace?: string; protocol?: ProtocolParameters } = {},
): ParsedSidetreeDid {
  const namespace = options.namespace ?? 'did:sidetree';
  const protocol = options.protocol ?? DIF_PROTOCOL;
  if (typeof did !== 'string' || !did.startsWith(`${namespace}:`))
    throw badRequest(`'${String(did)}' is not a ${namespace} DID`);
  const parts = did.slice(namespace.length + 1).split(':');
  if (parts.length > 2) throw badRequest(`DID '${did}' has too many segments`);
  const [suffix, state] = parts as [string, string | undefined];
  try {
    checkEncodedMultihash(suffix, 'DID suffix', protocol);
  } catch (error) {
    if (error instanceof AppError) throw badRequest(`DID '${did}' has an invalid suffix: ${error.message}`);
    throw error;
  }
  const shortForm = `${namespace}:${suffix}`;
  return {
    did,
    namespace,
    suffix,
    shortForm,
    longFormCreate: state === undefined ? undefined : parseInitialState(state, suffix, protocol),
  };
}
