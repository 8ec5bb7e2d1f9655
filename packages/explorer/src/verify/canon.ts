import jsonld from 'jsonld';
import { bundledContext } from '@anchor/common/jsonld/contexts';

/**
 * RDFC-1.0 (URDNA2015) canonical N-Quads of a credential, with jsonld.js — the library the services
 * canonicalise with — and the contexts the node bundles, so nothing is fetched. Loaded only when the user
 * asks for a verification (the page imports the verifier lazily): jsonld.js is most of its size.
 */
interface JsonLdEvent {
  event: { code: string; level: string; details?: Record<string, unknown> };
  next: () => void;
}

const canonize = (jsonld as unknown as { canonize(input: unknown, options: object): Promise<string> }).canonize;

/**
 * The anchor credential's subject uses three names no context defines (`href`, `rel`, `AnchorLink`); the
 * original's processor drops them, so they are in no signature and no log leaf. Only those may be dropped:
 * any other undefined term fails, as the node's safe canonicalisation does.
 */
export const ANCHOR_CREDENTIAL_UNDEFINED_TERMS: ReadonlySet<string> = new Set(['href', 'rel', 'AnchorLink']);

async function documentLoader(url: string): Promise<{ contextUrl: null; documentUrl: string; document: unknown }> {
  const bundled = bundledContext(url);
  if (bundled === undefined) throw new Error(`the context ${url} is not one the node bundles`);
  return { contextUrl: null, documentUrl: url, document: bundled.document };
}

function dropped(code: string, details: Record<string, unknown>): unknown {
  if (code === 'invalid property') return details['property'];
  if (code === 'relative @type reference') return details['type'];
  if (code === 'relative object reference') return details['object'];
  return undefined;
}

export async function nquads(document: Record<string, unknown>): Promise<string> {
  return canonize(document, {
    algorithm: 'URDNA2015',
    format: 'application/n-quads',
    base: null,
    safe: false,
    documentLoader,
    eventHandler: ({ event, next }: JsonLdEvent) => {
      if (event.level === 'warning') {
        const term = dropped(event.code, event.details ?? {});
        if (typeof term !== 'string' || !ANCHOR_CREDENTIAL_UNDEFINED_TERMS.has(term))
          throw new Error(`invalid JSON-LD: ${event.code} ${JSON.stringify(term ?? event.details ?? {})}`);
      }
      next();
    },
  });
}
