import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { CONTEXT_URLS, signDocument } from '@anchor/common/jsonld';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestNode, type TestNode } from '../testing/index.js';
import { CredentialVerifier } from './credential-verifier.js';

const PET_URL = 'https://example.org/contexts/pets/v1';
const PETS = {
  '@context': { '@version': 1.1, Pet: 'https://example.org/pets#Pet', name: 'https://example.org/pets#name' },
};
const ADMIN = { authorization: 'Bearer ADMIN' };

describe('node: JSON-LD contexts as operator data', () => {
  let dir: TempDir;
  let node: TestNode;
  let credential: object;

  beforeAll(async () => {
    dir = await makeTempDir('node-contexts-');
    const file = join(dir.path, 'contexts.json');
    await writeFile(file, JSON.stringify([{ url: PET_URL, content: PETS }]));
    node = await startTestNode({
      dir,
      args: ['--contexts-file', file, '--auth-tokens-def', '/ld/context|admin|admin', '--auth-tokens', 'admin=ADMIN'],
    });
    const key = KeyPair.generate('Ed25519');
    const did = didKeyFromKeyPair(key);
    credential = await signDocument(
      {
        '@context': [CONTEXT_URLS.credentialsV1, PET_URL],
        type: ['VerifiableCredential'],
        issuer: did,
        issuanceDate: '2026-01-01T00:00:00Z',
        credentialSubject: { id: 'urn:pet:rex', type: 'Pet', name: 'Rex' },
      },
      {
        key,
        verificationMethod: `${did}#${did.slice('did:key:'.length)}`,
        documentLoader: node.server.context.jsonldContexts.documentLoader,
      },
    );
  });
  afterAll(async () => {
    await node?.stop();
    await dir?.remove();
  });

  it('checks proofs with the contexts of --contexts-file, and not once the operator removed one', async () => {
    const { context } = node.server;
    const verifier = new CredentialVerifier(context.didResolver, 60_000, context.jsonldContexts.documentLoader);
    await verifier.verify(credential);
    await expect(new CredentialVerifier(context.didResolver, 60_000).verify(credential)).rejects.toThrow(
      `unknown JSON-LD context ${PET_URL}`,
    );

    const url = `${node.url}/ld/context`;
    expect((await fetch(url)).status).toBe(401);
    const listed = await fetch(url, { headers: ADMIN });
    expect(await listed.json()).toEqual({ documents: [{ url: PET_URL, content: PETS }] });
    const removed = await fetch(`${url}?url=${encodeURIComponent(PET_URL)}`, { method: 'DELETE', headers: ADMIN });
    expect(removed.status).toBe(204);
    await expect(verifier.verify(credential)).rejects.toThrow(`unknown JSON-LD context ${PET_URL}`);

    const added = await fetch(url, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ documents: [{ url: PET_URL, content: PETS }] }),
    });
    expect(added.status).toBe(200);
    await verifier.verify(credential);
  });
});
