import {
  explainWitnessPolicy,
  parseWitnessPolicy,
  type PolicyWitness,
  type RoleOutcome,
  type WitnessPolicy,
  type WitnessRole,
} from '@anchor/common/witness-policy';
import type { Check } from './anchor.js';
import { proofProblem, proofsOf, type Canonicalize, type KeyLookup } from './proofs.js';
import { hostOf } from '@anchor/common/did/iri-host';

/** What check (c) reads from the anchor credential's issuer besides the credential. */
export interface PolicyEvidence {
  /** The text its `GET /policy` serves; undefined when it answered 404 (no policy set: the default applies). */
  policy: string | undefined;
  /** Its `witnesses` collection: the system witnesses. */
  systemWitnesses: readonly string[];
  /** The anchor origins of the anchor's operations the page knows (the DID's own): their services are batch witnesses. */
  batchOrigins: readonly string[];
}

const TITLE = 'Witness proofs against the witness policy';

export { hostOf };

export function policyCheck(ok: boolean, reason: string, notChecked = false): Check {
  return { id: 'witness-policy', title: TITLE, ok, reason, ...(notChecked ? { notChecked } : {}) };
}

function witnessCount(count: number, role: WitnessRole): string {
  return `${count} ${role} witness${count === 1 ? '' : 'es'}`;
}

function roleText(outcome: RoleOutcome, members: readonly string[], proved: ReadonlySet<string>): string {
  const missing = members.filter((host) => !proved.has(host));
  return (
    `${outcome.term}: ${outcome.collected} of ${witnessCount(outcome.total, outcome.role)} proved` +
    (missing.length > 0 ? ` (none from ${missing.join(', ')})` : '')
  );
}

/**
 * Check (c): classifies each witness proof of the anchor credential by its signer's host — batch (a service of
 * an anchor origin of the anchor's operations) or system (the issuer's `witnesses`), the issuer's own proof
 * being neither, as the node sees it — verifies its signature with that host's key, and evaluates the issuer's
 * policy with the node's own evaluator (`@anchor/common/witness-policy`).
 */
export async function checkWitnessPolicy(
  credential: Record<string, unknown>,
  evidence: PolicyEvidence,
  keyOf: KeyLookup,
  canonicalize: Canonicalize,
): Promise<Check> {
  let policy: WitnessPolicy;
  try {
    policy = parseWitnessPolicy(evidence.policy ?? '');
  } catch (error) {
    return policyCheck(false, `the node's policy cannot be evaluated: ${(error as Error).message}`);
  }
  const policyName = evidence.policy === undefined ? 'the default policy' : `the policy "${evidence.policy}"`;
  const issuer = typeof credential['issuer'] === 'string' ? hostOf(credential['issuer']) : undefined;
  if (issuer === undefined) return policyCheck(false, 'the anchor credential names no issuer service');

  // The node never counts itself: a service of its own origin is neither a batch nor a system witness.
  const roles = new Map<string, Set<WitnessRole>>();
  const add = (iri: string, role: WitnessRole): void => {
    const host = hostOf(iri);
    if (host === undefined || host === issuer) return;
    roles.set(host, (roles.get(host) ?? new Set<WitnessRole>()).add(role));
  };
  for (const origin of evidence.batchOrigins) add(origin, 'batch');
  for (const witness of evidence.systemWitnesses) add(witness, 'system');

  const proved = new Set<string>();
  const logged = new Set<string>();
  const notes: string[] = [];
  const unclassified: string[] = [];
  for (const [index, proof] of proofsOf(credential).entries()) {
    const method = typeof proof.verificationMethod === 'string' ? proof.verificationMethod : '';
    const host = method.startsWith('did:web:') ? hostOf(method) : undefined;
    if (host === issuer) continue;
    if (host === undefined || !roles.has(host)) {
      unclassified.push(method || `proof ${index}`);
      continue;
    }
    let problem: string | undefined;
    try {
      problem = await proofProblem(credential, proof, await keyOf(method), canonicalize);
    } catch (error) {
      problem = `no key: ${(error as Error).message}`;
    }
    if (problem !== undefined) {
      notes.push(`the proof by ${method} does not count: ${problem}`);
      continue;
    }
    proved.add(host);
    if (typeof proof.domain === 'string' && /^https?:\/\/[^/]+\/[^/]+$/.test(proof.domain)) logged.add(host);
  }
  // Under LogRequired a witness counts when it has a log: a proof it logged shows it; one without a proof is
  // counted as having one (the stricter side: it stays in the total).
  const witnesses: PolicyWitness[] = [...roles].map(([uri, set]) => ({
    uri,
    roles: [...set].sort(),
    hasLog: !proved.has(uri) || logged.has(uri),
  }));
  const outcome = explainWitnessPolicy(policy, witnesses, (host) => proved.has(host));
  const membersOf = (role: WitnessRole): string[] =>
    witnesses.filter((w) => w.roles.includes(role) && (!policy.logRequired || w.hasLog)).map((w) => w.uri);
  const parts = [outcome.batch, outcome.system];
  if (unclassified.length > 0)
    notes.push(`not counted, neither a batch nor a system witness of this anchor: ${unclassified.join(', ')}`);
  const tail = notes.length > 0 ? `; ${notes.join('; ')}` : '';
  if (outcome.satisfied) {
    const described = parts.map((part) => roleText(part, membersOf(part.role), proved)).join(`; `);
    return policyCheck(true, `${policyName} holds: ${described}${tail}`);
  }
  const failed = parts.filter((part) => !part.holds);
  const described = failed.map((part) => roleText(part, membersOf(part.role), proved)).join(` ${outcome.operator} `);
  return policyCheck(false, `${policyName} fails on ${described}${tail}`);
}
