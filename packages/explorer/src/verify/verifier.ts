import { checkAnchorHash, type Check } from './anchor.js';
import { nquads } from './canon.js';
import { inclusionCheck, inclusionProblem, leafHashOf, leafInputOf, logKeyOf, logProofsOf } from './log.js';
import { base64Encode } from './bytes.js';
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

const NOT_CHECKED_POLICY: Check = {
  id: 'witness-policy',
  title: 'Witness proofs against the witness policy',
  ok: false,
  notChecked: true,
  reason:
    'not checked: a node publishes neither its witness policy (GET /policy is for its administrator) nor which witnesses it asked in which role',
};

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

export async function verifyAnchor(base: string, anchor: string): Promise<AnchorVerification> {
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
        NOT_CHECKED_POLICY,
        inclusionCheck(false, reason),
      ],
    };
  }
  const [proofs, log] = await Promise.all([checkProofs(parts.credential, keyOf, nquads), logCheck(parts.credential)]);
  return { anchor, checks: [check, proofs, NOT_CHECKED_POLICY, log] };
}

export async function verifyAnchors(base: string, anchors: readonly string[]): Promise<AnchorVerification[]> {
  const results: AnchorVerification[] = [];
  for (const anchor of anchors) results.push(await verifyAnchor(base, anchor));
  return results;
}
