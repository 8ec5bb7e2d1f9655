import { unauthorized } from '../errors/index.js';
import type { SignatureAuthenticator, SignedRequestLike } from '../http/principal.js';
import { algorithmAcceptable, type HttpSigKeyType } from './algorithms.js';
import { verifyContentDigest } from './content-digest.js';
import { checkCreatedFreshness, checkDateFreshness } from './date.js';
import { verifyDigestHeader } from './digest.js';
import { KeyResolver, type KeyResolverOptions, type ResolvedKey } from './key-resolver.js';
import {
  MESSAGE_SIGNATURE_ALGORITHMS,
  messageSignatureBase,
  parseMessageSignature,
  type MessageSignature,
} from './message-signature.js';
import { parseSignatureHeader, type SignatureParameters } from './signature-header.js';
import { buildSigningString, incomingHeaderLookup, MissingSignedHeaderError } from './signing-string.js';

export interface SignatureVerifierOptions extends KeyResolverOptions {
  /** Accepted distance between the request's `Date` and now, both directions. Default 5 minutes. */
  dateWindowMs?: number;
  /** Share one resolver (and its caches) between several authenticators; built from the options otherwise. */
  keyResolver?: KeyResolver;
  /**
   * The scheme peers address this service with, for the `@target-uri` an RFC 9421 signature covers (the request
   * itself does not say it behind a TLS-terminating proxy). Default `https`.
   */
  targetScheme?: 'http' | 'https';
}

/**
 * The inbound half: a `SignatureAuthenticator` that verifies a draft-cavage signature as Orb does
 * (keyId → key document → owner actor, whose `publicKey` must name that keyId), and further requires:
 * `(request-target)` and `date` signed, `digest` too when there is a body, the Digest matching the received
 * bytes, and `Date` within the window. A request with a `Signature-Input` field carries
 * an RFC 9421 signature instead, checked by the same rules in that scheme's terms (`verifyMessageSignature`).
 *
 * Cheap checks run before any fetch, so unsigned junk costs no network traffic. Resolves `undefined` when the
 * request has no `Signature` header; rejects with `unauthorized` (401) when a signature is present but not
 * acceptable, and with `transient` (503) when a key or actor could not be fetched for a retryable reason.
 */
export function createSignatureAuthenticator(options: SignatureVerifierOptions = {}): SignatureAuthenticator {
  const resolver = options.keyResolver ?? new KeyResolver(options);
  const now = options.now ?? Date.now;
  const dateWindowMs = options.dateWindowMs ?? 5 * 60_000;

  const targetScheme = options.targetScheme ?? 'https';

  return async (request) => {
    if (request.headers['signature-input'] !== undefined)
      return verifyMessageSignature(request, resolver, now(), dateWindowMs, targetScheme);
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

    const resolved = await verifyWithKey(resolver, params.keyId, signingString, params.signature, (type) =>
      algorithmAcceptable(params.algorithm, type)
        ? undefined
        : `signature algorithm ${JSON.stringify(params.algorithm)}`,
    );
    return { actor: resolved.actor, keyId: params.keyId };
  };
}

/**
 * RFC 9421 in the terms of the rules above: `@method` and the target (`@target-uri`, or `@path` with `@query`
 * when there is one) must be covered, `content-digest` too when there is a body and it must match the bytes,
 * `keyid` names the key as a draft-cavage keyId does, and `created` must be within the window the `Date` of a
 * draft-cavage request must be in. `alg`, when sent, must be the RFC's name for the key's algorithm.
 */
async function verifyMessageSignature(
  request: SignedRequestLike,
  resolver: KeyResolver,
  currentTime: number,
  windowMs: number,
  scheme: 'http' | 'https',
): Promise<{ actor: string; keyId: string }> {
  const signature = parseMessageSignature(request.headers);
  const { keyid, created, expires, alg } = signature.params;
  if (keyid === undefined) throw unauthorized('the RFC 9421 signature has no keyid');
  if (created === undefined) throw unauthorized('the RFC 9421 signature has no created time');
  checkCreatedFreshness(created, currentTime, windowMs);
  if (expires !== undefined && expires * 1000 < currentTime) throw unauthorized('the signature has expired');

  requireComponent(signature, '@method');
  const queryAt = request.originalUrl.indexOf('?');
  if (!signature.componentNames.includes('@target-uri')) {
    requireComponent(signature, '@path');
    if (queryAt >= 0 && queryAt < request.originalUrl.length - 1) requireComponent(signature, '@query');
  }
  const body = capturedBody(request);
  if (body !== undefined && body.length > 0) requireComponent(signature, 'content-digest');
  if (signature.componentNames.includes('content-digest')) {
    const digest = request.headers['content-digest'];
    if (digest === undefined) throw unauthorized('the signature covers content-digest, which the request lacks');
    verifyContentDigest(Array.isArray(digest) ? digest.join(', ') : digest, body ?? Buffer.alloc(0));
  }

  for (const name of signature.componentNames) {
    if (!name.startsWith('@') && request.headers[name] === undefined)
      throw unauthorized(`the signature covers ${name}, which the request lacks`);
  }
  const host = request.headers.host;
  const needsHost = signature.componentNames.some((name) => name === '@authority' || name === '@target-uri');
  if (needsHost && host === undefined)
    throw unauthorized('the signature covers the authority, but the request has no Host');
  let url: string;
  try {
    // Origin-form targets are appended, not resolved: `//x` is a path here, not a network-path reference.
    const target = request.originalUrl;
    url = new URL(target.startsWith('/') ? `${scheme}://${host ?? 'localhost'}${target}` : target).toString();
  } catch {
    throw unauthorized(
      `the request target cannot be read as a URL: ${JSON.stringify(request.originalUrl.slice(0, 100))}`,
    );
  }
  const base = Buffer.from(
    messageSignatureBase({ method: request.method, url, headers: request.headers }, signature.input),
    'utf8',
  );
  const resolved = await verifyWithKey(resolver, keyid, base, signature.signature, (type) =>
    alg === undefined || MESSAGE_SIGNATURE_ALGORITHMS[type] === alg
      ? undefined
      : `signature alg ${JSON.stringify(alg)}`,
  );
  return { actor: resolved.actor, keyId: keyid };
}

/**
 * Resolves the key and checks the signature, refetching a cached key once when it fails (the owner may have
 * rotated it). `misfit` names what the signature declares when that does not fit the key's type.
 */
async function verifyWithKey(
  resolver: KeyResolver,
  keyId: string,
  data: Buffer,
  signature: Buffer,
  misfit: (type: HttpSigKeyType) => string | undefined,
): Promise<ResolvedKey> {
  let resolved = await resolver.resolve(keyId);
  const declared = misfit(resolved.type);
  if (declared !== undefined) throw unauthorized(`${declared} does not fit the ${resolved.type} key ${keyId}`);
  let valid = await resolved.key.verify(data, signature);
  if (!valid && resolved.fromCache) {
    resolved = await resolver.resolve(keyId, true);
    valid = misfit(resolved.type) === undefined && (await resolved.key.verify(data, signature));
  }
  if (!valid) throw unauthorized(`invalid signature: it does not verify with key ${keyId}`);
  return resolved;
}

function requireComponent(signature: MessageSignature, name: string): void {
  if (!signature.componentNames.includes(name))
    throw unauthorized(
      `the signature must cover ${name} (covered: ${signature.componentNames.join(' ') || 'nothing'})`,
    );
}

/** The exact body bytes; a body the HTTP layer did not capture cannot have its digest checked, so it is refused. */
function capturedBody(request: SignedRequestLike): Buffer | undefined {
  const body = request.rawBody;
  const declaresBody =
    Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
  if (body === undefined && declaresBody)
    throw unauthorized('the request body was not captured, so its digest cannot be checked');
  return body;
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
  const body = capturedBody(request);
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
