import type { OutboundRequest, RequestSigner } from '../http/principal.js';
import {
  ecdsaSignatureToP1363,
  isHttpSigKeyType,
  KEY_PARAMETERS,
  ORIGINAL_ALGORITHM,
  type HttpSigKeyType,
  type SigningKey,
} from './algorithms.js';
import { httpDate } from './date.js';
import type { ContentDigestAlgorithm } from './content-digest.js';
import { digestHeader, type DigestAlgorithm } from './digest.js';
import { createMessageSigner } from './message-signer.js';
import { formatSignatureHeader } from './signature-header.js';
import { buildSigningString } from './signing-string.js';

/** `cavage`: the draft-cavage headers Orb reads (default); `rfc9421`: RFC 9421 HTTP Message Signatures. */
export const SIGNATURE_SCHEMES = ['cavage', 'rfc9421'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export interface RequestSignerOptions {
  /** `<service>/keys/main-key`, or a DID URL such as `did:web:host:services:node#main-key`. */
  keyId: string;
  key: SigningKey;
  /** Default `cavage`: Orb speaks nothing else. */
  scheme?: SignatureScheme;
  /** Digest algorithm for bodies (draft-cavage `Digest`). Default SHA-256, as Orb's library writes. */
  digestAlgorithm?: DigestAlgorithm;
  /** Digest algorithm for bodies (RFC 9421 `Content-Digest`). Default sha-256. */
  contentDigestAlgorithm?: ContentDigestAlgorithm;
  /** The draft-cavage `algorithm` parameter. Default `Sign`: Orb's verifier accepts no other name. */
  algorithm?: string;
  now?: () => Date;
}

/** The header lists Orb signs with, in its casing: GET `(request-target) Date`, with a body `+ Digest`. */
const WITHOUT_BODY = ['(request-target)', 'Date'] as const;
const WITH_BODY = ['(request-target)', 'Date', 'Digest'] as const;

/**
 * The outbound half: a `RequestSigner` returning the headers to add, draft-cavage `Date`, `Digest` (when there
 * is a body) and `Signature`, or RFC 9421 `Content-Digest`, `Signature-Input` and `Signature`
 * (message-signer.ts). It signs exactly the bytes given as `body`, so callers must send those bytes unchanged.
 */
export function createRequestSigner(options: RequestSignerOptions): RequestSigner {
  const { keyId, key } = options;
  if (!isHttpSigKeyType(key.type))
    throw new TypeError(`cannot sign HTTP requests with a ${key.type} key (Ed25519, P-256, P-384 or secp256k1)`);
  const keyType: HttpSigKeyType = key.type;
  const algorithm = options.algorithm ?? ORIGINAL_ALGORITHM;
  const digestAlgorithm = options.digestAlgorithm ?? 'SHA-256';
  const now = options.now ?? (() => new Date());
  // Validates keyId and algorithm once, so a bad configuration fails at startup rather than per request.
  formatSignatureHeader({ keyId, algorithm, headers: [], signature: Buffer.alloc(0) });
  if (options.scheme === 'rfc9421') {
    const contentDigest = options.contentDigestAlgorithm ?? 'sha-256';
    return createMessageSigner({ keyId, key, keyType, digestAlgorithm: contentDigest, now });
  }

  return async (request: OutboundRequest) => {
    const url = new URL(request.url);
    const hasBody = request.body !== undefined && request.body.length > 0;
    const added: Record<string, string> = { Date: httpDate(now()) };
    if (hasBody) added.Digest = digestHeader(request.body as Buffer, digestAlgorithm);
    const headers = hasBody ? WITH_BODY : WITHOUT_BODY;
    const signingString = buildSigningString(headers, {
      method: request.method,
      target: `${url.pathname}${url.search}`,
      header: (name) => (name === 'date' ? added.Date : name === 'digest' ? added.Digest : undefined),
    });
    let signature = await key.sign(Buffer.from(signingString, 'utf8'));
    if (keyType !== 'Ed25519') signature = ecdsaSignatureToP1363(signature, KEY_PARAMETERS[keyType].scalarBytes);
    added.Signature = formatSignatureHeader({ keyId, algorithm, headers, signature });
    return added;
  };
}
