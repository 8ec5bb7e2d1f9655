import { canonicalize as jcs } from '@anchor/common/encoding';
import { canonicalize } from '@anchor/common/jsonld';
import { leafHash } from '@anchor/common/merkle';

/**
 * The benchmark's credentials: about 2 KB each, distinct, under bundled contexts only (credentials v1 and
 * ActivityStreams), which is what canonicalisation costs ~0.3 ms for on one core here.
 */
export function benchCredential(run: string, n: number): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/2018/credentials/v1', 'https://www.w3.org/ns/activitystreams'],
    id: `https://node1.example.com/vc/${run}-${n}-2b3c1d2e-4f5a-6b7c-8d9e-0f1a2b3c4d5e`,
    type: ['VerifiableCredential'],
    issuer: 'https://node1.example.com/services/node',
    issuanceDate: '2024-03-01T19:23:24.123Z',
    credentialSubject: {
      id: `https://node1.example.com/anchors/${run}-${n}`,
      type: 'Note',
      name: `Anchor batch ${n}`,
      summary: 'A batch of DID operations anchored by node1 and witnessed by the federation',
      published: '2024-03-01T19:23:24Z',
      attributedTo: 'https://node1.example.com/services/node',
      tag: Array.from({ length: 8 }, (_, k) => ({
        type: 'Link',
        href: `hl:uEiB${n}x${k}oA1vVq9eN6bG9z2cP0bJzV1kXwq8C1m0Q8cY2a4bZ3w`,
        name: `did:node:EiD${k}${n}aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789abcdef`,
        mediaType: 'application/json',
      })),
    },
  };
}

/**
 * What a client of the log computes to find its entry (trustbloc/vct's `CalculateLeafHash`): the leaf of
 * the credential's N-Quads at the acknowledged timestamp, hashed as an RFC 6962 leaf.
 */
export async function clientLeafHash(credential: object, timestamp: number): Promise<Buffer> {
  const nquads = await canonicalize(credential);
  const leaf = {
    version: 0,
    leaf_type: 100,
    timestamped_entry: {
      timestamp,
      entry_type: 100,
      vc_entry: Buffer.from(nquads).toString('base64'),
      extensions: null,
    },
  };
  return leafHash(Buffer.from(jcs(leaf)));
}
