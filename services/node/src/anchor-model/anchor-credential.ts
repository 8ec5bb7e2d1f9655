import { permanent } from '@anchor/common/errors';
import { CONTEXT_URLS } from '@anchor/common/jsonld';
import { ANCHOR_PROFILE } from './anchor-linkset.js';

/**
 * The anchor credential (orb.md §2.4 step 6, spec "Anchor credential"): a verifiable credential issued by
 * the node's service whose subject names the anchor (`href`, the hashlink of the content object) and the
 * core index (`anchor`). Unsigned here; the node's proof (log-backed when a log is configured) and the
 * witnesses' proofs are added by the pipeline.
 */
export interface AnchorCredential {
  '@context': string[];
  id: string;
  type: string[];
  issuer: string;
  issuanceDate: string;
  credentialSubject: { anchor: string; href: string; profile: string; rel: 'linkset'; type: ['AnchorLink'] };
  proof?: unknown;
  [member: string]: unknown;
}

export function buildAnchorCredential(input: {
  id: string;
  issuer: string;
  issued: Date;
  anchor: string;
  coreIndexAnchor: string;
  /** The anchor profile of the batch's protocol version (default v1.0's). */
  profile?: string;
}): AnchorCredential {
  return {
    '@context': [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.activityAnchorsV1],
    id: input.id,
    type: ['VerifiableCredential', 'AnchorCredential'],
    issuer: input.issuer,
    issuanceDate: input.issued.toISOString(),
    credentialSubject: {
      anchor: input.coreIndexAnchor,
      href: input.anchor,
      profile: input.profile ?? ANCHOR_PROFILE,
      rel: 'linkset',
      type: ['AnchorLink'],
    },
  };
}

/**
 * Checks that a received credential is the anchor credential of this anchor (Orb's
 * `ValidateAnchorCredential`): its subject's `href` is the anchor (the hashlink of the content), and its
 * `anchor` and `profile`, when present, agree with the content. Returns the transaction time it carries
 * (the issuance date in Unix seconds), which orders the anchor's operations.
 */
export function checkAnchorCredential(
  credential: Record<string, unknown>,
  expected: { anchor: string; contentAnchor: string; profile?: string },
): { transactionTime: number; issuer: string } {
  const subject = credential.credentialSubject;
  if (typeof subject !== 'object' || subject === null || Array.isArray(subject))
    throw permanent('anchor credential has no credentialSubject object');
  const { href, anchor, profile } = subject as Record<string, unknown>;
  if (href !== expected.anchor)
    throw permanent(
      `anchor credential subject href [${String(href)}] does not match the hashlink of the content [${expected.anchor}]`,
    );
  if (anchor !== undefined && anchor !== expected.contentAnchor) {
    throw permanent(
      `anchor in the credential subject [${String(anchor)}] does not match the anchor in the anchor linkset [${expected.contentAnchor}]`,
    );
  }
  const expectedProfile = expected.profile ?? ANCHOR_PROFILE;
  if (profile !== undefined && profile !== expectedProfile)
    throw permanent(`profile in the credential subject [${String(profile)}] is not ${expectedProfile}`);
  const issuer =
    typeof credential.issuer === 'string' ? credential.issuer : (credential.issuer as { id?: unknown } | undefined)?.id;
  if (typeof issuer !== 'string' || issuer.length === 0) throw permanent('anchor credential has no issuer');
  const issued = typeof credential.issuanceDate === 'string' ? Date.parse(credential.issuanceDate) : Number.NaN;
  if (!Number.isFinite(issued))
    throw permanent(`anchor credential issuanceDate ${JSON.stringify(credential.issuanceDate)} is not a date`);
  return { transactionTime: Math.floor(issued / 1000), issuer };
}
