import { checkAnchorHash, type Check } from './anchor.js';
import { nquads } from './canon.js';
import { inclusionCheck, inclusionProblem, leafHashOf, leafInputOf, logKeyOf, logProofsOf } from './log.js';
import { base64Encode } from './bytes.js';
import { checkWitnessPolicy, policyCheck, type PolicyEvidence } from './policy.js';
import { checkProofs, keyInDocument, proofsOf, type KeyLookup } from './proofs.js';

/**
 * The verifier the page loads on demand (its own bundle, `verifier.js`: jsonld.js is most of it): fetches an
 * anchor's linkset from the node, the keys of its proofs from their did:web documents and the log's answers,
 * and runs the pure checks. Every failure becomes a red check with its reason, never an exception.
 */
export interface AnchorVerification {
  anchor: string;
  checks: Check[];
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/;

/** did:web → its DID document URL (https, plain http on loopback as the node resolves it). */
export function didWebUrl(did: string): string {
  const [method, name, host, ...path] = did.split(':');
  if (method !== 'did' || name !== 'web' || host === undefined || host === '')
    throw new Error(`${did} is not a did:web DID`);
  const domain = decodeURIComponent(host);
  const scheme = LOOPBACK.test(domain) ? 'http' : 'https';
  const tail = path.length === 0 ? '.well-known/did.json' : `${path.map(decodeURIComponent).join('/')}/did.json`;
  return `${scheme}://${domain}/${tail}`;
}

async function json(url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' } });
  } catch (error) {
    throw new Error(`${url} cannot be read from this page (${(error as Error).message})`, { cause: error });
  }
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

const keyOf: KeyLookup = async (method) => {
  const did = method.split('#')[0] ?? method;
  return keyInDocument(await json(didWebUrl(did)), method);
};

/** Why a read of the issuer's node failed; `grey` when it is one the page cannot make (a token, a blocked read). */
class Unreadable extends Error {}

async function read(url: string, what: string): Promise<Response | undefined> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/activity+json, application/json, text/plain' } });
  } catch (error) {
    throw new Unreadable(`${what} (${url}) cannot be read from this page: ${(error as Error).message}`);
  }
  if (response.status === 401 || response.status === 403)
    throw new Unreadable(`${what} (${url}) answered ${response.status}: the node asks for a read token`);
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`${what} (${url}) answered ${response.status}`);
  return response;
}

/** Every member of an ActivityPub collection, page by page (`?page=true`, then `next`). */
async function members(collection: string, what: string): Promise<string[]> {
  const items: string[] = [];
  let next: unknown = `${collection}?page=true`;
  for (let pages = 0; typeof next === 'string' && pages < 100; pages++) {
    const response = await read(next, what);
    if (response === undefined) break;
    const page = (await response.json()) as { items?: unknown; orderedItems?: unknown; next?: unknown };
    const list = page.items ?? page.orderedItems;
    if (Array.isArray(list)) for (const item of list) if (typeof item === 'string') items.push(item);
    next = page.next;
  }
  return items;
}

/** Check (c): the policy and the system witnesses from the credential's issuer, then the pure check. */
async function witnessPolicyCheck(
  credential: Record<string, unknown>,
  batchOrigins: readonly string[],
): Promise<Check> {
  const issuer = credential['issuer'];
  if (typeof issuer !== 'string') return policyCheck(false, 'the anchor credential names no issuer service');
  let evidence: PolicyEvidence;
  try {
    const origin = new URL(issuer).origin;
    const [policy, systemWitnesses] = await Promise.all([
      read(`${origin}/policy`, "the issuer's witness policy").then((response) => response?.text()),
      members(`${issuer}/witnesses`, "the issuer's witnesses"),
    ]);
    evidence = { policy, systemWitnesses, batchOrigins };
  } catch (error) {
    const reason = (error as Error).message;
    return error instanceof Unreadable
      ? policyCheck(false, `not checked: ${reason}`, true)
      : policyCheck(false, reason);
  }
  return checkWitnessPolicy(credential, evidence, keyOf, nquads);
}

async function logCheck(credential: Record<string, unknown>): Promise<Check> {
  const logged = logProofsOf(proofsOf(credential), credential['issuer']);
  if (logged.length === 0) return inclusionCheck(false, 'no proof of the anchor credential is backed by a log');
  const seen: string[] = [];
  for (const proof of logged) {
    const logUrl = String(proof.domain);
    try {
      const origin = new URL(logUrl).origin;
      const [sth, webfinger] = await Promise.all([
        json(`${logUrl}/v1/get-sth`),
        json(`${origin}/.well-known/webfinger?resource=${encodeURIComponent(logUrl)}`),
      ]);
      const sthValue = sth as Parameters<typeof inclusionProblem>[2]['sth'];
      const created = Date.parse(String(proof.created));
      const leafHash = base64Encode(await leafHashOf(await leafInputOf(credential, created, nquads)));
      const inclusion = await json(
        `${logUrl}/v1/get-proof-by-hash?hash=${encodeURIComponent(leafHash)}&tree_size=${sthValue.tree_size}`,
      );
      const problem = await inclusionProblem(
        credential,
        proof,
        { logUrl, sth: sthValue, publicKey: logKeyOf(webfinger), inclusion: inclusion as never },
        nquads,
      );
      if (problem !== undefined)
        return inclusionCheck(false, `${String(proof.verificationMethod)} in ${logUrl}: ${problem}`);
      seen.push(`${logUrl} (tree size ${sthValue.tree_size})`);
    } catch (error) {
      return inclusionCheck(false, `${String(proof.verificationMethod)}: ${(error as Error).message}`);
    }
  }
  return inclusionCheck(true, `included under a tree head the log signed: ${[...new Set(seen)].join(', ')}`);
}

/** `batchOrigins`: the anchor origins of the anchor's operations the page knows (from the DID's history). */
export async function verifyAnchor(
  base: string,
  anchor: string,
  batchOrigins: readonly string[] = [],
): Promise<AnchorVerification> {
  let linkset: string;
  try {
    const response = await fetch(`${base}/cas/${encodeURIComponent(anchor)}`);
    if (!response.ok) throw new Error(`the node answered ${response.status} for the anchor linkset`);
    linkset = await response.text();
  } catch (error) {
    const reason = `the anchor linkset cannot be read: ${(error as Error).message}`;
    return { anchor, checks: [{ id: 'anchor-hash', title: 'Anchor hash', ok: false, reason }] };
  }
  const { check, parts } = await checkAnchorHash(anchor, linkset);
  if (parts === undefined) {
    const reason = 'not checked: the anchor credential comes from a linkset that failed the anchor-hash check';
    return {
      anchor,
      checks: [
        check,
        { id: 'proofs', title: "Anchor credential's proofs", ok: false, reason },
        policyCheck(false, reason, true),
        inclusionCheck(false, reason),
      ],
    };
  }
  const [proofs, policy, log] = await Promise.all([
    checkProofs(parts.credential, keyOf, nquads),
    witnessPolicyCheck(parts.credential, batchOrigins),
    logCheck(parts.credential),
  ]);
  return { anchor, checks: [check, proofs, policy, log] };
}

export async function verifyAnchors(
  base: string,
  anchors: readonly string[],
  originsOf: Readonly<Record<string, readonly string[]>> = {},
): Promise<AnchorVerification[]> {
  const results: AnchorVerification[] = [];
  for (const anchor of anchors) results.push(await verifyAnchor(base, anchor, originsOf[anchor] ?? []));
  return results;
}
