import type { OutboundRequest, RequestSigner } from '../http/principal.js';
import { ecdsaSignatureToP1363, KEY_PARAMETERS, type HttpSigKeyType, type SigningKey } from './algorithms.js';
import { contentDigestHeader, type ContentDigestAlgorithm } from './content-digest.js';
import type { InnerList } from 'structured-headers';
import {
  formatMessageSignature,
  MESSAGE_SIGNATURE_ALGORITHMS,
  messageSignatureBase,
  signatureInput,
  type SignedMessage,
} from './message-signature.js';

/** The label of the one signature we write; a verifier reads labels only to pair the two fields. */
const LABEL = 'sig1';
/** What our RFC 9421 verifier requires of a request, and what ActivityPub servers speaking the RFC check. */
const WITHOUT_BODY = ['@method', '@target-uri'] as const;
const WITH_BODY = ['@method', '@target-uri', 'content-digest'] as const;

/**
 * The RFC 9421 outbound half: `Content-Digest` (when there is a body), `Signature-Input` and `Signature`,
 * `sig1=("@method" "@target-uri"[ "content-digest"]);created=...;keyid="...";alg="..."`. ECDSA signatures are
 * sent as `r || s`, as the RFC's ECDSA algorithms define them.
 */
export function createMessageSigner(options: {
  keyId: string;
  key: SigningKey;
  keyType: HttpSigKeyType;
  digestAlgorithm: ContentDigestAlgorithm;
  now: () => Date;
}): RequestSigner {
  const { keyId, key, keyType, digestAlgorithm, now } = options;
  const alg = MESSAGE_SIGNATURE_ALGORITHMS[keyType];
  // keyid is a structured-field string (printable ASCII): a bad configuration fails here, not per request.
  try {
    formatMessageSignature(LABEL, signatureInput([], { keyid: keyId }), Buffer.alloc(0));
  } catch {
    throw new TypeError(`invalid keyId for an RFC 9421 signature (printable ASCII only): ${JSON.stringify(keyId)}`);
  }
  return async (request: OutboundRequest) => {
    const hasBody = request.body !== undefined && request.body.length > 0;
    const added: Record<string, string> = {};
    if (hasBody) added['Content-Digest'] = contentDigestHeader(request.body as Buffer, digestAlgorithm);
    const input = signatureInput(hasBody ? WITH_BODY : WITHOUT_BODY, {
      created: Math.floor(now().getTime() / 1000),
      keyid: keyId,
      ...(alg === undefined ? {} : { alg }),
    });
    // The URL as it goes on the wire (Node's request line is pathname + search): no fragment, no lone `?`.
    const target = new URL(request.url);
    const url = `${target.protocol}//${target.host}${target.pathname}${target.search}`;
    const message = { method: request.method, url, headers: { ...request.headers, ...added } };
    return { ...added, ...(await signMessage(message, input, key, keyType, LABEL)) };
  };
}

/** Signs the base of `message` for `input`, returning the `Signature-Input` and `Signature` fields under `label`. */
export async function signMessage(
  message: SignedMessage,
  input: InnerList,
  key: SigningKey,
  keyType: HttpSigKeyType,
  label: string,
): Promise<Record<'Signature-Input' | 'Signature', string>> {
  const base = messageSignatureBase(message, input);
  let signature = await key.sign(Buffer.from(base, 'utf8'));
  if (keyType !== 'Ed25519') signature = ecdsaSignatureToP1363(signature, KEY_PARAMETERS[keyType].scalarBytes);
  return formatMessageSignature(label, input, signature);
}
