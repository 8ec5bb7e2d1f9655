import { unauthorized } from '../errors/index.js';
import type { SignatureAuthenticator, SignedRequestLike } from '../http/principal.js';
import { algorithmAcceptable } from './algorithms.js';
import { checkDateFreshness } from './date.js';
import { verifyDigestHeader } from './digest.js';
import { KeyResolver, type KeyResolverOptions } from './key-resolver.js';
import { parseSignatureHeader, type SignatureParameters } from './signature-header.js';
import { buildSigningString, incomingHeaderLookup, MissingSignedHeaderError } from './signing-string.js';

export interface SignatureVerifierOptions extends KeyResolverOptions {
  /** Accepted distance between the request's `Date` and now, both directions. Default 5 minutes. */
  dateWindowMs?: number;
  /** Share one resolver (and its caches) between several authenticators; built from the options otherwise. */
  keyResolver?: KeyResolver;
}

/**
 * The inbound half: a `SignatureAuthenticator` that verifies a draft-cavage signature as the original does
 * (keyId → key document → owner actor, whose `publicKey` must name that keyId) with the checks the original
 * lacks: `(request-target)` and `date` must be signed, `digest` too when there is a body, the Digest must match
 * the received bytes, and `Date` must be within the window.
 *
 * Cheap checks run before any fetch, so unsigned junk costs no network traffic. Resolves `undefined` when the
 * request has no `Signature` header; rejects with `unauthorized` (401) when a signature is present but not
 * acceptable, and with `transient` (503) when a key or actor could not be fetched for a retryable reason.
 */
export function createSignatureAuthenticator(options: SignatureVerifierOptions = {}): SignatureAuthenticator {
  const resolver = options.keyResolver ?? new KeyResolver(options);
  const now = options.now ?? Date.now;
  const dateWindowMs = options.dateWindowMs ?? 5 * 60_000;

  return async (request) => {
    const header = request.headers.signature;
    if (header === undefined) return undefined;
    const params = parseSignatureHeader(Array.isArray(header) ? header.join(', ') : header);
    const lookup = incomingHeaderLookup(request.headers);
    const currentTime = now();

    requireCovered(params, '(request-target)');
    requireCovered(params, 'date');
    checkDateFreshness(lookup('date'), currentTime, dateWindowMs);
    if (params.expires !== undefined && params.expires * 1000 < currentTime)
      throw unauthorized('the signature has expired');
    checkBody(request, params, lookup('digest'));

    let signingString: Buffer;
    try {
      signingString = Buffer.from(
        buildSigningString(params.headers, {
          method: request.method,
          target: request.originalUrl,
          header: lookup,
          ...created(params),
        }),
        'utf8',
      );
    } catch (error) {
      if (error instanceof MissingSignedHeaderError)
        throw unauthorized(`the signature covers ${error.headerName}, which the request lacks`);
      throw error;
    }

    let resolved = await resolver.resolve(params.keyId);
    if (!algorithmAcceptable(params.algorithm, resolved.type)) {
      throw unauthorized(
        `signature algorithm ${JSON.stringify(params.algorithm)} does not fit the ${resolved.type} key ${params.keyId}`,
      );
    }
    let valid = await resolved.key.verify(signingString, params.signature);
    if (!valid && resolved.fromCache) {
      // The owner may have rotated the key since we cached it: fetch it once more before giving up.
      resolved = await resolver.resolve(params.keyId, true);
      valid =
        algorithmAcceptable(params.algorithm, resolved.type) &&
        (await resolved.key.verify(signingString, params.signature));
    }
    if (!valid) throw unauthorized(`invalid signature: it does not verify with key ${params.keyId}`);
    return { actor: resolved.actor, keyId: params.keyId };
  };
}

function requireCovered(params: SignatureParameters, name: string): void {
  if (!params.headers.includes(name))
    throw unauthorized(`the signature must cover ${name} (signed headers: ${params.headers.join(' ')})`);
}

/**
 * A body must be covered by a signed Digest that matches the exact bytes received. When the HTTP layer did
 * not capture the bytes of a request that has a body, integrity cannot be checked, so the request is refused.
 */
function checkBody(request: SignedRequestLike, params: SignatureParameters, digest: string | undefined): void {
  const body = request.rawBody;
  const declaresBody =
    Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
  if (body === undefined && declaresBody)
    throw unauthorized('the request body was not captured, so its Digest cannot be checked');
  const hasBody = body !== undefined && body.length > 0;
  if (hasBody) requireCovered(params, 'digest');
  if (params.headers.includes('digest')) {
    if (digest === undefined) throw unauthorized('the signature covers digest, which the request lacks');
    verifyDigestHeader(digest, body ?? Buffer.alloc(0));
  }
}

function created(params: SignatureParameters): { created?: number; expires?: number } {
  return {
    ...(params.created === undefined ? {} : { created: params.created }),
    ...(params.expires === undefined ? {} : { expires: params.expires }),
  };
}
