import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyPair } from '@anchor/common/crypto';
import { JsonLdContexts } from '@anchor/common/jsonld-contexts';
import { createMemStoreProvider } from '@anchor/common/storage';
import { buildLeafInput, leafHashOf, vcEntryOf, vcTimestampSignaturePayload, verifyEnvelope } from '@anchor/common/vct';
import { canonicalize } from '@anchor/common/jsonld';
import { LogSigner } from '../signing/log-signer.js';
import { createEntryPreparer, type EntryPreparer } from './entry-preparer.js';

/**
 * The worker pool prepares exactly what the in-line path does: the same N-Quads, identity, leaf and the same
 * signed bytes (Ed25519 is deterministic, so equal signatures mean equal payloads). The pool runs the built
 * worker (`npx tsc -b services/vct-log` first, as for the process tests).
 */
const WORKER = new URL('../../dist/credentials/entry-worker.js', import.meta.url);
const TIMESTAMP = 1_795_298_953_239;

const credential = (n: number) => ({
  '@context': ['https://www.w3.org/2018/credentials/v1', 'https://www.w3.org/ns/activitystreams'],
  id: `https://node1.example.com/vc/pool-${n}`,
  type: ['VerifiableCredential'],
  issuer: 'https://node1.example.com/services/node',
  issuanceDate: '2024-03-01T19:23:24.123Z',
  credentialSubject: {
    id: `https://node1.example.com/anchors/${n}`,
    type: 'Note',
    name: `Anchor batch ${n} "quoted" \\ é`,
    tag: Array.from({ length: n % 6 }, (_, k) => ({ type: 'Link', href: `hl:uEiB${n}x${k}`, name: `did:node:${k}` })),
  },
});

describe('entry preparation on the worker pool and in line', () => {
  const signer = LogSigner.local(KeyPair.generate('Ed25519'));
  let pool: EntryPreparer;
  let inline: EntryPreparer;

  beforeAll(async () => {
    if (!existsSync(WORKER))
      throw new Error(`${WORKER.pathname} is missing: build first (npx tsc -b services/vct-log)`);
    const contexts = await JsonLdContexts.open(createMemStoreProvider());
    const common = { allowUndefinedTerms: ['href', 'rel', 'AnchorLink'], signer, contexts };
    pool = await createEntryPreparer({ ...common, workers: 2, worker: { file: WORKER, execArgv: [] } });
    inline = await createEntryPreparer({ ...common, workers: 0 });
  });
  afterAll(async () => {
    await pool?.close();
    await inline?.close();
  });

  it('gives the same entry and signs the same bytes', async () => {
    expect(pool.workers).toBe(2);
    for (let n = 0; n < 12; n++) {
      const body = JSON.stringify(credential(n));
      const [fromPool, fromInline] = await Promise.all([
        pool.prepare(body, TIMESTAMP + n, undefined),
        inline.prepare(body, TIMESTAMP + n, undefined),
      ]);
      expect(fromPool).toEqual(fromInline);
      // And both are trustbloc/vct's leaf and VCTimestampSignature of the credential's N-Quads.
      const vcEntry = vcEntryOf(await canonicalize(credential(n)));
      const leafInput = buildLeafInput(TIMESTAMP + n, vcEntry);
      expect(fromPool.entry.leafInput).toBe(leafInput);
      expect(fromPool.entry.leafHash).toBe(leafHashOf(leafInput).toString('base64'));
      const payload = vcTimestampSignaturePayload(TIMESTAMP + n, vcEntry);
      expect(verifyEnvelope(fromPool.entry.signature, payload, signer.publicKeyBytes)).toBe(true);
    }
  });

  it('refuses the same bad bodies with the same errors', async () => {
    for (const body of [
      '',
      'not json',
      '{}',
      JSON.stringify({ ...credential(1), credentialSubject: { undefinedTerm: 1 } }),
    ]) {
      const fromPool = await pool.prepare(body, TIMESTAMP, undefined).catch((error: Error) => error);
      const fromInline = await inline.prepare(body, TIMESTAMP, undefined).catch((error: Error) => error);
      expect(fromPool).toBeInstanceOf(Error);
      expect((fromPool as Error).message).toBe((fromInline as Error).message);
    }
  });
});
