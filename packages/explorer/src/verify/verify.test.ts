import { readFileSync } from 'node:fs';
import {
  canonicalBytes,
  decodeDataUri as nodeDecodeDataUri,
  multibaseMultihash as nodeMultihash,
} from '@anchor/common/encoding';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS, canonicalize as nodeCanonicalize } from '@anchor/common/jsonld';
import { leafHashOf as nodeLeafHashOf } from '@anchor/common/vct';
import { describe, expect, it } from 'vitest';
import { checkAnchorHash, jcs } from './anchor.js';
import { base64Decode, base64Encode, decodeDataUri, multibaseMultihash, utf8 } from './bytes.js';
import { nquads } from './canon.js';
import {
  inclusionProblem,
  leafHashOf,
  leafInputOf,
  logKeyOf,
  logProofsOf,
  sthProblem,
  type LogEvidence,
} from './log.js';
import { checkWitnessPolicy, type PolicyEvidence } from './policy.js';
import { checkProofs, keyInDocument, proofsOf, type KeyLookup } from './proofs.js';
import { didWebUrl } from './verifier.js';

/** Real answers of a vct-log and two nodes (see vectors/README.md); the tests tamper with copies. */
interface Capture {
  nodes: [string, string];
  policy: string;
  logUrl: string;
  history: { operations: Array<{ versionId: string; anchor: { anchorOrigin?: string } }> };
  linksets: Record<string, string>;
  didDocuments: Record<string, unknown>;
  sth: LogEvidence['sth'];
  webfinger: unknown;
  logProofs: Array<{
    anchor: string;
    verificationMethod: string;
    leafHash: string;
    leafInput: string;
    proof: LogEvidence['inclusion'];
  }>;
}
const capture = JSON.parse(readFileSync(new URL('./vectors/federation.json', import.meta.url), 'utf8')) as Capture;
const anchors = capture.history.operations.map((operation) => operation.versionId);
const keyOf: KeyLookup = async (method) => keyInDocument(capture.didDocuments[method.split('#')[0] as string], method);

async function credentialOf(anchor: string): Promise<Record<string, unknown>> {
  const { parts } = await checkAnchorHash(anchor, capture.linksets[anchor] as string);
  if (!parts) throw new Error('no credential');
  return parts.credential;
}

function evidenceFor(anchor: string, method: string): LogEvidence {
  const logged = capture.logProofs.find((entry) => entry.anchor === anchor && entry.verificationMethod === method);
  if (!logged) throw new Error('no log proof captured');
  return { logUrl: capture.logUrl, sth: capture.sth, publicKey: logKeyOf(capture.webfinger), inclusion: logged.proof };
}

describe('the page computes what the node computes', () => {
  it('hashes and decodes as the common kit does', async () => {
    for (const anchor of anchors) {
      const linkset = JSON.parse(capture.linksets[anchor] as string) as { linkset: Array<Record<string, any>> };
      expect(await multibaseMultihash(utf8(jcs(linkset)))).toBe(nodeMultihash(canonicalBytes(linkset)));
      for (const name of ['original', 'related', 'replies']) {
        const href = linkset.linkset[0]?.[name][0].href as string;
        expect(Buffer.from(await decodeDataUri(href))).toEqual(nodeDecodeDataUri(href));
      }
    }
    const bytes = utf8('any bytes ✓');
    expect(base64Encode(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    expect(base64Decode(Buffer.from(bytes).toString('base64'))).toEqual(new Uint8Array(bytes));
  });

  it("canonicalises the anchor credential to the node's N-Quads, and its leaf to the log's", async () => {
    for (const logged of capture.logProofs) {
      const credential = await credentialOf(logged.anchor);
      const { proof: _proof, ...unsigned } = credential;
      expect(await nquads(unsigned)).toBe(
        await nodeCanonicalize(unsigned, { allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS }),
      );
      const created = proofsOf(credential).find((proof) => proof.verificationMethod === logged.verificationMethod)
        ?.created as string;
      const leafInput = await leafInputOf(credential, Date.parse(created), nquads);
      expect(base64Encode(utf8(leafInput))).toBe(logged.leafInput);
      expect(base64Encode(await leafHashOf(leafInput))).toBe(nodeLeafHashOf(leafInput).toString('base64'));
      expect(base64Encode(await leafHashOf(leafInput))).toBe(logged.leafHash);
    }
  });

  it('refuses an undefined term other than the three the anchor credential uses', async () => {
    const credential = await credentialOf(anchors[0] as string);
    const { proof: _proof, ...unsigned } = credential;
    await expect(nquads({ ...unsigned, madeUp: 'x' })).rejects.toThrow(/invalid JSON-LD: invalid property "madeUp"/);
  });
});

describe('(a) anchor hash', () => {
  it('is green for every anchor the node serves', async () => {
    for (const anchor of anchors) {
      const { check, parts } = await checkAnchorHash(anchor, capture.linksets[anchor] as string);
      expect(check, check.reason).toMatchObject({ id: 'anchor-hash', ok: true });
      expect(parts?.contentAnchor).toMatch(/^hl:uEi/);
    }
  });

  it('is red when the linkset is not the one the anchor hash names', async () => {
    const [first, second] = anchors as [string, string];
    const { check } = await checkAnchorHash(first, capture.linksets[second] as string);
    expect(check.ok).toBe(false);
    expect(check.reason).toBe(`the anchor linkset hashes to ${second}, not to the anchor hash ${first}`);
    const edited = (capture.linksets[first] as string).replace('"author":[{"href":"http', '"author":[{"href":"https');
    expect(edited).not.toBe(capture.linksets[first]);
    expect((await checkAnchorHash(first, edited)).check.reason).toMatch(/^the anchor linkset hashes to uEi.*, not to/);
  });

  it("is red when a part does not match the link's anchor, even under a matching outer hash", async () => {
    const [first, second] = anchors as [string, string];
    const linkset = JSON.parse(capture.linksets[first] as string) as { linkset: Array<Record<string, unknown>> };
    const other = JSON.parse(capture.linksets[second] as string) as { linkset: Array<Record<string, unknown>> };
    // Another anchor's content object under this link: re-hashed, the outer hash is the tampered linkset's own.
    const swapped = { linkset: [{ ...linkset.linkset[0], original: other.linkset[0]?.['original'] }] };
    const swappedHash = await multibaseMultihash(utf8(jcs(swapped)));
    const { check } = await checkAnchorHash(swappedHash, JSON.stringify(swapped));
    expect(check.ok).toBe(false);
    expect(check.reason).toMatch(/^the content object \('original'\) hashes to uEi\S+, not to the anchor link's uEi/);
    const noJson = await checkAnchorHash(first, '{not json');
    expect(noJson.check.reason).toBe('the anchor linkset is not JSON');
  });
});

describe('(b) proofs', () => {
  it("is green: every proof verifies with its node's did:web key", async () => {
    for (const anchor of anchors) {
      const check = await checkProofs(await credentialOf(anchor), keyOf, nquads);
      expect(check, check.reason).toMatchObject({ id: 'proofs', ok: true });
      expect(check.reason).toMatch(/^2 Ed25519Signature2020 proofs verify/);
    }
  });

  it('is red, naming the proof, for a tampered credential, signature or key', async () => {
    const credential = await credentialOf(anchors[0] as string);
    const [nodeProof, witnessProof] = proofsOf(credential) as [Record<string, unknown>, Record<string, unknown>];
    const reissued = { ...credential, issuanceDate: '2020-01-01T00:00:00.000Z' };
    expect((await checkProofs(reissued, keyOf, nquads)).reason).toBe(
      `proof 0 by ${String(nodeProof['verificationMethod'])}: the Ed25519 signature does not verify`,
    );
    const value = String(witnessProof['proofValue']);
    const flipped = `${value.slice(0, -2)}${value.endsWith('11') ? '22' : '11'}`;
    const badSignature = { ...credential, proof: [nodeProof, { ...witnessProof, proofValue: flipped }] };
    const red = await checkProofs(badSignature, keyOf, nquads);
    expect(red.ok).toBe(false);
    expect(red.reason).toMatch(/^proof 1 by did:web:\S+#vc-key: the (Ed25519 signature does not verify|signature has)/);
    const wrongKey: KeyLookup = async () => keyOf(String(witnessProof['verificationMethod']));
    expect((await checkProofs(credential, wrongKey, nquads)).reason).toMatch(/^proof 0 by .*does not verify$/);
    expect((await checkProofs({ ...credential, proof: [] }, keyOf, nquads)).reason).toBe(
      'the anchor credential has no proof',
    );
  });
});

describe('(c) witness proofs against the witness policy', () => {
  // The capture's federation (vectors/README.md): node 2 accepted node 1's Invite, so it is node 1's one system
  // witness; the DID's operations come from node 1 itself, so the anchors have no batch witness.
  const [node1, node2] = capture.nodes;
  const evidence = (change: Partial<PolicyEvidence> = {}): PolicyEvidence => ({
    policy: capture.policy,
    systemWitnesses: [`${node2}/services/node`],
    batchOrigins: [capture.history.operations[0]!.anchor.anchorOrigin as string],
    ...change,
  });
  const node2Method = `did:web:${new URL(node2).host.replace(':', '%3A')}#vc-key`;
  const withoutProof = (credential: Record<string, unknown>, method: string) => ({
    ...credential,
    proof: proofsOf(credential).filter((proof) => proof.verificationMethod !== method),
  });

  it("is green for every anchor: node 2's system witness proof verifies and satisfies node 1's policy", async () => {
    for (const anchor of anchors) {
      const check = await checkWitnessPolicy(await credentialOf(anchor), evidence(), keyOf, nquads);
      expect(check.reason).toBe(
        `the policy "${capture.policy}" holds: MinPercent(100,batch): 0 of 0 batch witnesses proved; ` +
          `MinPercent(50,system): 1 of 1 system witness proved`,
      );
      expect(check.ok).toBe(true);
    }
  });

  it('is red, naming the policy term, when the witness proof is removed', async () => {
    const credential = withoutProof(await credentialOf(anchors[0] as string), node2Method);
    const check = await checkWitnessPolicy(credential, evidence(), keyOf, nquads);
    expect(check.ok).toBe(false);
    expect(check.notChecked).toBeUndefined();
    expect(check.reason).toBe(
      `the policy "${capture.policy}" fails on MinPercent(50,system): 0 of 1 system witness proved (none from ${new URL(node2).host})`,
    );
    // The default policy (no policy set: 404) needs every system witness too.
    const byDefault = await checkWitnessPolicy(credential, evidence({ policy: undefined }), keyOf, nquads);
    expect(byDefault.reason).toMatch(/^the default policy fails on MinPercent\(100,system\): 0 of 1 system witness/);
  });

  it("does not count a witness proof whose signature fails, nor the issuer's own, nor an unknown signer's", async () => {
    const credential = await credentialOf(anchors[0] as string);
    const forged = {
      ...credential,
      proof: proofsOf(credential).map((proof) =>
        proof.verificationMethod === node2Method
          ? { ...proof, proofValue: proofsOf(credential)[0]!.proofValue }
          : proof,
      ),
    };
    const check = await checkWitnessPolicy(forged, evidence(), keyOf, nquads);
    expect(check.ok).toBe(false);
    expect(check.reason).toContain('MinPercent(50,system): 0 of 1 system witness proved');
    expect(check.reason).toContain(`the proof by ${node2Method} does not count: the Ed25519 signature does not verify`);

    // Node 2 not among the witnesses: its proof is named as not counted, and an empty system role holds.
    const unknown = await checkWitnessPolicy(credential, evidence({ systemWitnesses: [] }), keyOf, nquads);
    expect(unknown.ok).toBe(true);
    expect(unknown.reason).toContain(
      `not counted, neither a batch nor a system witness of this anchor: ${node2Method}`,
    );

    // A batch origin on node 2 makes it a batch witness too: its one proof counts for both roles.
    const both = await checkWitnessPolicy(credential, evidence({ batchOrigins: [node1, node2] }), keyOf, nquads);
    expect(both.reason).toContain('MinPercent(100,batch): 1 of 1 batch witness proved');
    expect(both.ok).toBe(true);
  });

  it('is red for a policy the node could not have set', async () => {
    const check = await checkWitnessPolicy(
      await credentialOf(anchors[0] as string),
      evidence({ policy: 'MinPercent(150,batch)' }),
      keyOf,
      nquads,
    );
    expect(check.ok).toBe(false);
    expect(check.reason).toMatch(/^the node's policy cannot be evaluated: invalid witness policy/);
  });
});

describe('(d) log inclusion', () => {
  it("is green: the tree head's signature and each log-backed proof's inclusion verify", async () => {
    expect(await sthProblem(capture.sth, logKeyOf(capture.webfinger))).toBeUndefined();
    for (const logged of capture.logProofs) {
      const credential = await credentialOf(logged.anchor);
      const proof = proofsOf(credential).find((entry) => entry.verificationMethod === logged.verificationMethod);
      expect(
        await inclusionProblem(credential, proof!, evidenceFor(logged.anchor, logged.verificationMethod), nquads),
      ).toBeUndefined();
    }
  });

  it('is red for a tree head it did not sign, a wrong audit path, or a credential the log does not hold', async () => {
    const logged = capture.logProofs[0]!;
    const credential = await credentialOf(logged.anchor);
    const proof = proofsOf(credential).find((entry) => entry.verificationMethod === logged.verificationMethod)!;
    const evidence = evidenceFor(logged.anchor, logged.verificationMethod);
    const bigger = { ...evidence, sth: { ...evidence.sth, tree_size: evidence.sth.tree_size + 1 } };
    expect(await inclusionProblem(credential, proof, bigger, nquads)).toBe(
      `the signature of the tree head of size ${evidence.sth.tree_size + 1} does not verify with the log's key`,
    );
    const path = (evidence.inclusion.audit_path ?? []).map((hash) => `${hash[0] === 'A' ? 'B' : 'A'}${hash.slice(1)}`);
    const badPath = { ...evidence, inclusion: { ...evidence.inclusion, audit_path: path } };
    expect(await inclusionProblem(credential, proof, badPath, nquads)).toMatch(
      /^the inclusion proof of leaf \d+ does not lead to the signed root of the tree of size \d+$/,
    );
    const otherTime = { ...proof, created: '2020-01-01T00:00:00.000Z' };
    expect(await inclusionProblem(credential, otherTime, evidence, nquads)).toMatch(/does not lead to the signed root/);
    const otherKey = {
      ...evidence,
      publicKey: keyInDocument(
        Object.values(capture.didDocuments)[0],
        `${Object.keys(capture.didDocuments)[0]}#vc-key`,
      ),
    };
    expect(await inclusionProblem(credential, proof, otherKey, nquads)).toMatch(/does not verify with the log's key$/);
  });
});

describe('where the page reads keys and logs from', () => {
  it('reads a did:web document over https, over plain http on loopback, and under a path', () => {
    expect(didWebUrl('did:web:127.0.0.1%3A8080')).toBe('http://127.0.0.1:8080/.well-known/did.json');
    expect(didWebUrl('did:web:node1.example.com')).toBe('https://node1.example.com/.well-known/did.json');
    expect(didWebUrl('did:web:example.com:services:node')).toBe('https://example.com/services/node/did.json');
    expect(() => didWebUrl('did:key:z6Mk')).toThrow('is not a did:web DID');
  });

  it("takes the proofs whose domain is a log as log-backed, not a node's own domain", async () => {
    const credential = await credentialOf(anchors[0] as string);
    const proofs = proofsOf(credential);
    expect(logProofsOf(proofs, credential['issuer'])).toHaveLength(2);
    const issuer = String(credential['issuer']);
    const ownDomain = issuer.slice(0, issuer.indexOf('/services/'));
    const unlogged = proofs.map((proof) => ({ ...proof, domain: ownDomain }));
    expect(logProofsOf(unlogged, issuer)).toHaveLength(0);
    const prefixed = 'https://a.example/node-1';
    expect(logProofsOf([{ domain: prefixed }], `${prefixed}/services/node`)).toHaveLength(0);
  });
});
