/** The DID resolution result in the JSON-LD profile of DID Core 1.0 and the Universal Resolver. */
export const RESOLUTION_LD_MEDIA_TYPE = 'application/ld+json;profile="https://w3id.org/did-resolution"';
/** The DID resolution result of the W3C DID Resolution specification. */
export const RESOLUTION_MEDIA_TYPE = 'application/did-resolution';
/** The DID URL dereferencing result of the W3C DID Resolution specification. */
export const DEREFERENCING_MEDIA_TYPE = 'application/did-url-dereferencing';
/** The DID document alone, in one of its representations. */
export const DOCUMENT_MEDIA_TYPES = ['application/did+ld+json', 'application/did+json', 'application/did'] as const;

const RESOLUTION_PROFILE = 'https://w3id.org/did-resolution';

export type DocumentMediaType = (typeof DOCUMENT_MEDIA_TYPES)[number];

/**
 * What a resolution request asked for: Orb's answer (`seed`), a W3C resolution result (`result`,
 * in the `ld` profile form or the `did-resolution` form), a DID URL dereferencing result (`dereferencing`),
 * or the bare DID document or resource (`document`).
 */
export type ResolutionRepresentation =
  | { kind: 'seed' }
  | { kind: 'result'; form: 'ld' | 'did-resolution'; mediaType: string }
  | { kind: 'dereferencing'; mediaType: typeof DEREFERENCING_MEDIA_TYPE }
  | { kind: 'document'; mediaType: DocumentMediaType };

const SEED: ResolutionRepresentation = { kind: 'seed' };

interface AcceptedType {
  representation: ResolutionRepresentation | undefined;
  q: number;
}

/**
 * Reads the `Accept` header of a resolution request. Only a binding media type named explicitly selects
 * the binding, when no other type is preferred to it (a higher q); a wildcard, `application/json` or no
 * header keep Orb's answer, so existing clients see the same bytes.
 */
export function negotiateResolution(accept: string | string[] | undefined): ResolutionRepresentation {
  const header = Array.isArray(accept) ? accept.join(',') : accept;
  if (header === undefined || header.trim() === '') return SEED;
  const accepted = header.split(',').map(acceptedType);
  let best: AcceptedType | undefined;
  for (const candidate of accepted) {
    if (candidate.representation === undefined || candidate.q <= 0) continue;
    if (best === undefined || candidate.q > best.q) best = candidate;
  }
  if (best === undefined) return SEED;
  const preferredOther = accepted.some((other) => other.representation === undefined && other.q > best.q);
  return preferredOther ? SEED : (best.representation as ResolutionRepresentation);
}

function acceptedType(range: string): AcceptedType {
  const [rawType = '', ...rawParams] = range.split(';');
  const type = rawType.trim().toLowerCase();
  const params = new Map<string, string>();
  for (const param of rawParams) {
    const at = param.indexOf('=');
    if (at < 0) continue;
    params.set(
      param.slice(0, at).trim().toLowerCase(),
      param
        .slice(at + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1'),
    );
  }
  const q = params.has('q') ? Number(params.get('q')) : 1;
  return { representation: representationOf(type, params.get('profile')), q: Number.isFinite(q) ? q : 0 };
}

function representationOf(type: string, profile: string | undefined): ResolutionRepresentation | undefined {
  if (type === 'application/ld+json' && profile?.split(/\s+/).includes(RESOLUTION_PROFILE))
    return { kind: 'result', form: 'ld', mediaType: RESOLUTION_LD_MEDIA_TYPE };
  if (type === RESOLUTION_MEDIA_TYPE)
    return { kind: 'result', form: 'did-resolution', mediaType: RESOLUTION_MEDIA_TYPE };
  if (type === DEREFERENCING_MEDIA_TYPE) return { kind: 'dereferencing', mediaType: DEREFERENCING_MEDIA_TYPE };
  const document = DOCUMENT_MEDIA_TYPES.find((mediaType) => mediaType === type);
  return document ? { kind: 'document', mediaType: document } : undefined;
}
