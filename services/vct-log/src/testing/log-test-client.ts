/**
 * What the tests use to act as a client of the log: credentials, the client-side leaf computation of the
 * original (`CalculateLeafHash`), signature checks with the WebFinger key, and a small HTTP helper.
 */
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS, canonicalize } from '@anchor/common/jsonld';
import { leafHash } from '@anchor/common/merkle';
import {
  buildLeafInput,
  treeHeadSignaturePayload,
  vcEntryOf,
  vcTimestampSignaturePayload,
  verifyEnvelope,
  type AddVcResponse,
  type SignedTreeHead,
} from '@anchor/common/vct';

export const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
export const ACTIVITY_ANCHORS_V1 = 'https://w3id.org/activityanchors/v1';

/** An anchor credential as a node submits it (its subject carries the undefined href/rel/AnchorLink terms). */
export function anchorCredential(n: number | string, issuer = 'did:web:node1.example.com'): Record<string, unknown> {
  return {
    '@context': [CREDENTIALS_V1, ACTIVITY_ANCHORS_V1],
    id: `https://node1.example.com/vc/${n}`,
    type: ['VerifiableCredential', 'AnchorCredential'],
    issuer,
    issuanceDate: '2024-03-01T19:23:24.123Z',
    credentialSubject: {
      anchor: `hl:uEiBk2x${n}oA1vVq9eN6bG9z2cP0bJzV1kXwq8C1m0Q8cY2a4`,
      href: `hl:uEiC8d${n}xL0m3qv9Y3d5e7f9h1j3k5m7n9p1r3t5v7x9z1b`,
      profile: 'https://w3id.org/orb#v0',
      rel: 'linkset',
      type: ['AnchorLink'],
    },
  };
}

/** The N-Quads a client computes for a credential (trustbloc/vct's `CreateLeaf`: proof removed). */
export function nquadsOf(credential: object): Promise<string> {
  return canonicalize({ ...credential, proof: null }, { allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS });
}

/** trustbloc/vct's client `CalculateLeafHash(timestamp, vc)`: the Merkle leaf hash of the logged leaf. */
export async function leafHashFor(credential: object, timestamp: number): Promise<Buffer> {
  return leafHash(Buffer.from(buildLeafInput(timestamp, vcEntryOf(await nquadsOf(credential)))));
}

/** trustbloc/vct's client `VerifyVCTimestampSignature`: rebuilds the payload from the client's copy of the credential. */
export async function addVcSignatureVerifies(
  response: AddVcResponse,
  credential: object,
  publicKey: Buffer,
): Promise<boolean> {
  const payload = vcTimestampSignaturePayload(response.timestamp, vcEntryOf(await nquadsOf(credential)));
  return verifyEnvelope(response.signature, payload, publicKey);
}

/** The log monitor's STH check. */
export function sthSignatureVerifies(sth: SignedTreeHead, publicKey: Buffer): boolean {
  return verifyEnvelope(
    sth.tree_head_signature,
    treeHeadSignaturePayload(sth.timestamp, sth.tree_size, Buffer.from(sth.sha256_root_hash, 'base64')),
    publicKey,
  );
}

export interface Reply<T = unknown> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** One request; the body is parsed as JSON when it is JSON. */
export async function call<T = unknown>(
  url: string,
  init: { method?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed as T, text, headers: response.headers };
}
