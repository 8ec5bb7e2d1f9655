import { jcs, type Check } from './anchor.js';
import { base64Decode, base64Encode, concat, equalBytes, sha256, text, utf8 } from './bytes.js';
import { ed25519Verify, type Canonicalize, type Proof } from './proofs.js';

/**
 * Check (d): a log-backed proof's credential is in the log (RFC 9162 inclusion proof) under a tree head the
 * log signed (its WebFinger key). The leaf is trustbloc/vct's JSON `MerkleTreeLeaf`, JCS-serialised, whose
 * `vc_entry` is base64 of the credential's canonical N-Quads without its proofs, stamped with the proof's
 * `created` (the log's timestamp). Pure: the caller fetches the log's answers.
 */
export interface SignedTreeHead {
  tree_size: number;
  timestamp: number;
  sha256_root_hash: string;
  tree_head_signature: string;
}

export interface InclusionProof {
  leaf_index: number;
  audit_path: string[] | null;
}

/** The leaf input the log holds for a credential logged at `timestamp` (ms). */
export async function leafInputOf(
  credential: Record<string, unknown>,
  timestamp: number,
  canonicalize: Canonicalize,
): Promise<string> {
  const { proof: _proofs, ...unsigned } = credential;
  const vcEntry = base64Encode(utf8(await canonicalize(unsigned)));
  return jcs({
    version: 0,
    leaf_type: 100,
    timestamped_entry: { timestamp, entry_type: 100, vc_entry: vcEntry, extensions: null },
  });
}

/** RFC 6962 leaf hash: SHA-256(0x00 || leaf input). */
export async function leafHashOf(leafInput: string): Promise<Uint8Array> {
  return sha256(concat(new Uint8Array([0]), utf8(leafInput)));
}

const nodeHash = (left: Uint8Array, right: Uint8Array): Promise<Uint8Array> =>
  sha256(concat(new Uint8Array([1]), left, right));

/** RFC 9162 §2.1.3.2: the root an inclusion proof leads to, or undefined when it cannot be valid for (index, size). */
export async function rootFromInclusionProof(
  leafIndex: number,
  treeSize: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
): Promise<Uint8Array | undefined> {
  if (!Number.isSafeInteger(leafIndex) || !Number.isSafeInteger(treeSize) || leafIndex < 0 || leafIndex >= treeSize)
    return undefined;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leafHash;
  for (const p of proof) {
    if (p.length !== 32 || sn === 0) return undefined;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else r = await nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : undefined;
}

/** Why a tree head's signature does not verify with the log's raw Ed25519 key, or undefined when it does. */
export async function sthProblem(sth: SignedTreeHead, publicKey: Uint8Array): Promise<string | undefined> {
  let envelope: { algorithm?: { type?: unknown }; signature?: unknown };
  try {
    envelope = JSON.parse(text(base64Decode(sth.tree_head_signature))) as typeof envelope;
  } catch {
    return 'the tree head signature is not base64 of a JSON envelope';
  }
  if (envelope.algorithm?.type !== 'ED25519')
    return `the tree head is signed with ${String(envelope.algorithm?.type)}, which this page does not verify`;
  if (typeof envelope.signature !== 'string') return 'the tree head signature envelope has no signature';
  const payload = utf8(
    jcs({
      version: 0,
      signature_type: 101,
      timestamp: sth.timestamp,
      tree_size: sth.tree_size,
      sha_256_root_hash: sth.sha256_root_hash,
    }),
  );
  let signature: Uint8Array;
  try {
    signature = base64Decode(envelope.signature);
  } catch {
    return 'the tree head signature is not base64';
  }
  return (await ed25519Verify(publicKey, signature, payload))
    ? undefined
    : `the signature of the tree head of size ${sth.tree_size} does not verify with the log's key`;
}

/** The log's Ed25519 key from its WebFinger answer (`https://trustbloc.dev/ns/public-key`, base64). */
export function logKeyOf(webfinger: unknown): Uint8Array {
  const key = (webfinger as { properties?: Record<string, unknown> } | null)?.properties?.[
    'https://trustbloc.dev/ns/public-key'
  ];
  if (typeof key !== 'string') throw new Error('the log publishes no public key in WebFinger');
  return base64Decode(key);
}

/** What the log answered for one log-backed proof. */
export interface LogEvidence {
  logUrl: string;
  sth: SignedTreeHead;
  publicKey: Uint8Array;
  inclusion: InclusionProof;
}

/** Why a log-backed proof's credential is not shown included under a signed tree head, or undefined. */
export async function inclusionProblem(
  credential: Record<string, unknown>,
  proof: Proof,
  evidence: LogEvidence,
  canonicalize: Canonicalize,
): Promise<string | undefined> {
  const timestamp = typeof proof.created === 'string' ? Date.parse(proof.created) : Number.NaN;
  if (!Number.isFinite(timestamp)) return 'the proof has no created time (the log timestamp)';
  const sthIssue = await sthProblem(evidence.sth, evidence.publicKey);
  if (sthIssue !== undefined) return sthIssue;
  const leafHash = await leafHashOf(await leafInputOf(credential, timestamp, canonicalize));
  let path: Uint8Array[];
  try {
    path = (evidence.inclusion.audit_path ?? []).map(base64Decode);
  } catch {
    return 'the audit path is not base64';
  }
  const root = await rootFromInclusionProof(evidence.inclusion.leaf_index, evidence.sth.tree_size, leafHash, path);
  let signedRoot: Uint8Array;
  try {
    signedRoot = base64Decode(evidence.sth.sha256_root_hash);
  } catch {
    return 'the tree head root is not base64';
  }
  if (root === undefined || !equalBytes(root, signedRoot))
    return `the inclusion proof of leaf ${evidence.inclusion.leaf_index} does not lead to the signed root of the tree of size ${evidence.sth.tree_size}`;
  return undefined;
}

/**
 * The log-backed proofs of a credential: those whose `domain` is a log URL (`<origin>/<alias>`). A proof made
 * without a log names the node's anchor-credential domain instead, by default its external endpoint, which
 * the issuer (`<external endpoint>/services/...`) starts with.
 */
export function logProofsOf(proofs: readonly Proof[], issuer: unknown): Proof[] {
  return proofs.filter(
    (proof) =>
      typeof proof.domain === 'string' &&
      /^https?:\/\/[^/]+\/[^/]+$/.test(proof.domain) &&
      !(typeof issuer === 'string' && issuer.startsWith(`${proof.domain}/`)),
  );
}

export function inclusionCheck(ok: boolean, reason: string): Check {
  return { id: 'log-inclusion', title: 'Log inclusion under a signed tree head', ok, reason };
}
