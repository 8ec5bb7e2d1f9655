import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialV1, issuerProfile, startTestVcs, type TestVcs } from './vcs.test-helpers.js';

const DEGREE_CONTEXT = 'https://university.example/contexts/degree/v1';
const DEGREE_DOCUMENT = {
  '@context': {
    '@version': 1.1,
    degree: 'https://university.example/vocab#degree',
    grade: 'https://university.example/vocab#grade',
  },
};

describe("the operator's JSON-LD contexts", () => {
  let vcs: TestVcs;
  beforeAll(async () => {
    vcs = await startTestVcs();
    await issuerProfile(vcs, 'uni');
  });
  afterAll(async () => vcs?.stop());

  const degree = () =>
    credentialV1({
      '@context': ['https://www.w3.org/2018/credentials/v1', DEGREE_CONTEXT],
      credentialSubject: { id: 'did:example:alice', degree: 'BSc' },
    });

  it('refuses a credential whose context is unknown, then signs and verifies it once the operator adds the context', async () => {
    const refused = await vcs.call('POST', '/uni/credentials/issueCredential', { credential: degree() });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(`unknown JSON-LD context ${DEGREE_CONTEXT}`);
    const added = await vcs.call('POST', '/ld/context', { url: DEGREE_CONTEXT, content: DEGREE_DOCUMENT });
    expect(added.status).toBeLessThan(300);
    const issued = await vcs.call('POST', '/uni/credentials/issueCredential', { credential: degree() });
    expect(issued.status).toBe(201);
    const verified = await vcs.call('POST', '/verifier/credentials', {
      verifiableCredential: issued.body,
      options: { checks: ['proof', 'status'] },
    });
    expect(verified.status).toBe(200);
  });

  it('reads --contexts-file at start-up', async () => {
    const file = join(vcs.dir.path, 'contexts.json');
    await writeFile(file, JSON.stringify({ url: DEGREE_CONTEXT, content: DEGREE_DOCUMENT }));
    const other = await startTestVcs({ contextsFile: file });
    try {
      await issuerProfile(other, 'uni');
      expect((await other.call('POST', '/uni/credentials/issueCredential', { credential: degree() })).status).toBe(201);
    } finally {
      await other.stop();
    }
  });
});
