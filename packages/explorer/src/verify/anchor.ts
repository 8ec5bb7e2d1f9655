import canonicalizeJson from 'canonicalize';
import { decodeDataUri, hashlinkHash, multibaseMultihash, text, utf8 } from './bytes.js';

/** One check's outcome, as the page shows it: green or red, and why. */
export interface Check {
  id: 'anchor-hash' | 'proofs' | 'witness-policy' | 'log-inclusion';
  title: string;
  ok: boolean;
  /** Shown grey: the check could not be made from public endpoints (`ok` is false then). */
  notChecked?: boolean;
  reason: string;
}

/** What the anchor-hash check reads out of an anchor linkset for the checks after it. */
export interface AnchorParts {
  /** The anchor link's `anchor`: `hl:<hash of the content object>`. */
  contentAnchor: string;
  credential: Record<string, unknown>;
}

/** JCS (RFC 8785) through the same package the node canonicalises with. */
export function jcs(value: unknown): string {
  const canonical = (canonicalizeJson as (input: unknown) => string | undefined)(value);
  if (canonical === undefined) throw new TypeError('the value has no JSON form');
  return canonical;
}

class Refusal extends Error {}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Refusal(`${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

async function part(link: Record<string, unknown>, name: string): Promise<Uint8Array> {
  const references = link[name];
  if (!Array.isArray(references) || references.length !== 1) throw new Refusal(`'${name}' must hold one reference`);
  const href = objectOf(references[0], `the '${name}' reference`).href;
  if (typeof href !== 'string') throw new Refusal(`the '${name}' reference has no href`);
  try {
    return await decodeDataUri(href);
  } catch (error) {
    throw new Refusal(`'${name}' cannot be decoded: ${(error as Error).message}`);
  }
}

function jsonOf(bytes: Uint8Array, what: string): Record<string, unknown> {
  try {
    return objectOf(JSON.parse(text(bytes)), what);
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw new Refusal(`${what} is not JSON`);
  }
}

/**
 * Check (a): the anchor linkset the node serves for an anchor hash is the one that hash names, as the node's
 * observer computes it (the SHA2-256 multihash of the linkset's JCS bytes), and its parts agree: the content
 * object hashes to the link's `anchor` hashlink, `related` names the same anchor, and the anchor credential's
 * subject `href` is that anchor (the subject's `href` is not covered by any signature, so it is checked here).
 */
export async function checkAnchorHash(
  anchorHash: string,
  linksetText: string,
): Promise<{ check: Check; parts?: AnchorParts }> {
  const title = 'Anchor hash';
  const fail = (reason: string): { check: Check } => ({ check: { id: 'anchor-hash', title, ok: false, reason } });
  try {
    let linkset: unknown;
    try {
      linkset = JSON.parse(linksetText);
    } catch {
      throw new Refusal('the anchor linkset is not JSON');
    }
    const computed = await multibaseMultihash(utf8(jcs(linkset)));
    if (computed !== anchorHash)
      throw new Refusal(`the anchor linkset hashes to ${computed}, not to the anchor hash ${anchorHash}`);
    const links = objectOf(linkset, 'the anchor linkset').linkset;
    if (!Array.isArray(links) || links.length !== 1) throw new Refusal('the anchor linkset must hold one link');
    const link = objectOf(links[0], 'the anchor link');
    if (typeof link.anchor !== 'string') throw new Refusal('the anchor link has no anchor hashlink');
    let contentHash: string;
    try {
      contentHash = hashlinkHash(link.anchor);
    } catch (error) {
      throw new Refusal((error as Error).message);
    }
    const contentComputed = await multibaseMultihash(await part(link, 'original'));
    if (contentComputed !== contentHash)
      throw new Refusal(
        `the content object ('original') hashes to ${contentComputed}, not to the anchor link's ${contentHash}`,
      );
    const related = jsonOf(await part(link, 'related'), "'related'").linkset;
    const relatedAnchor = Array.isArray(related) ? (related[0] as { anchor?: unknown } | undefined)?.anchor : undefined;
    if (relatedAnchor !== link.anchor)
      throw new Refusal(`'related' names the anchor ${String(relatedAnchor)}, not ${link.anchor}`);
    const credential = jsonOf(await part(link, 'replies'), 'the anchor credential');
    const subject = objectOf(credential.credentialSubject, "the anchor credential's subject");
    if (subject.href !== link.anchor)
      throw new Refusal(`the anchor credential's subject names ${String(subject.href)}, not the anchor ${link.anchor}`);
    return {
      check: {
        id: 'anchor-hash',
        title,
        ok: true,
        reason: `the linkset hashes to ${anchorHash}; its content object to ${contentHash}, which its credential names`,
      },
      parts: { contentAnchor: link.anchor, credential },
    };
  } catch (error) {
    if (error instanceof Refusal) return fail(error.message);
    throw error;
  }
}
