import { KeyPair } from '@anchor/common/crypto';
import { decodeDataUri, parseHashlink } from '@anchor/common/encoding';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS, attachProof, createProof } from '@anchor/common/jsonld';
import { waitFor } from '@anchor/testing/process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  metadataOf,
  postOperation,
  startTestNode,
  TestDid,
  waitPublished,
  type TestNode,
} from '../testing/test-node.js';
import type { AnchorCredential } from '../anchor-model/anchor-credential.js';
import type { AnchorWitnessing, WitnessRequest } from './witnessing.js';

/**
 * The witnessing seam the federation plugs into: an implementation that answers `pending` a few
 * times, then adds a witness's proof (here a did:key witness) — the pipeline keeps the anchor in
 * `witnessing`, re-checks after the delay asked for, and publishes the credential with both proofs, which
 * the observer verifies.
 */
class DelayedKeyWitness implements AnchorWitnessing {
  readonly requests: WitnessRequest[] = [];
  private readonly key = KeyPair.generate('Ed25519');
  readonly did = didKeyFromKeyPair(this.key);

  constructor(private readonly pendingAnswers: number) {}

  async witness(request: WitnessRequest) {
    this.requests.push(request);
    if (request.attempt <= this.pendingAnswers) return { status: 'pending' as const, recheckAfterMs: 50 };
    const proof = await createProof(request.credential, {
      key: this.key,
      verificationMethod: `${this.did}#${this.did.slice('did:key:'.length)}`,
      domain: 'https://witness.example.com',
      allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS,
    });
    return { status: 'witnessed' as const, credential: attachProof(request.credential, proof) as AnchorCredential };
  }
}

describe('anchor witnessing seam', () => {
  let node: TestNode | undefined;
  afterEach(async () => {
    await node?.stop();
    node = undefined;
  });

  it('waits while the witnessing answers pending, then publishes every proof', async () => {
    const witness = new DelayedKeyWitness(2);
    node = await startTestNode({ server: { witnessing: witness } });
    const did = new TestDid(node.url);
    await postOperation(node.url, did.created.request);
    const published = await waitPublished(node.url, did.did);

    expect(witness.requests.map((request) => request.attempt)).toEqual([1, 2, 3]);
    const [first] = witness.requests;
    expect(new Set(witness.requests.map((request) => request.startedAt)).size).toBe(1);
    expect(first!.batchOrigins).toEqual([node.url]);
    expect(first!.credential.proof).toMatchObject({ domain: node.url });
    expect((await first!.link()).anchor).toBe(first!.anchor);

    const hashlink = (metadataOf(published).method.publishedOperations as Array<{ equivalentReferences: string[] }>)[0]!
      .equivalentReferences[0]!;
    const stored = await node.server.services.cas.store.read(parseHashlink(hashlink).resourceHash);
    const linkset = JSON.parse(stored!.content.toString()) as { linkset: Array<{ replies: Array<{ href: string }> }> };
    const credential = JSON.parse(decodeDataUri(linkset.linkset[0]!.replies[0]!.href).toString()) as {
      proof: Array<{ domain: string }>;
    };
    expect(credential.proof.map((proof) => proof.domain)).toEqual([node.url, 'https://witness.example.com']);
  });

  it('refuses (at the observer) a witness proof that does not verify', async () => {
    const forged: AnchorWitnessing = {
      async witness(request) {
        const proof = {
          ...(request.credential.proof as Record<string, unknown>),
          domain: 'https://forged.example.com',
        };
        return { status: 'witnessed', credential: { ...request.credential, proof: [request.credential.proof, proof] } };
      },
    };
    node = await startTestNode({ server: { witnessing: forged } });
    const did = new TestDid(node.url);
    await postOperation(node.url, did.created.request);
    const current = node;
    const rejected = await waitFor(
      async () =>
        (await current.server.services.observer.records.anchors.query({ limit: 10 })).items.find(
          (item) => item.value.status === 'rejected',
        )?.value,
      { timeoutMs: 10_000, description: 'the anchor to be rejected' },
    );
    expect(rejected?.reason).toMatch(/proof verification failed: proof 1 \(signature\)/);
  });
});
