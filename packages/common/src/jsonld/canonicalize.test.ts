import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { ANCHOR_CREDENTIAL_UNDEFINED_TERMS } from './anchor-credential.js';
import { canonicalize } from './canonicalize.js';
import { CONTEXT_URLS } from './contexts.js';
import { createDocumentLoader } from './document-loader.js';
import { anchorCredential } from './fixtures.js';

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('bad_request');
  return error as AppError;
}

describe('canonicalize', () => {
  it('produces RDFC-1.0 N-Quads with canonical blank node labels and sorted lines', async () => {
    const nquads = await canonicalize({
      '@context': { ex: 'https://example.org/#', knows: { '@id': 'ex:knows', '@type': '@id' }, name: 'ex:name' },
      name: 'b',
      knows: { name: 'a' },
    });
    expect(nquads).toBe(
      '_:c14n0 <https://example.org/#knows> _:c14n1 .\n' +
        '_:c14n0 <https://example.org/#name> "b" .\n' +
        '_:c14n1 <https://example.org/#name> "a" .\n',
    );
  });

  it('gives the same output for the same data however the JSON is laid out', async () => {
    const a = {
      '@context': CONTEXT_URLS.credentialsV1,
      type: 'VerifiableCredential',
      issuer: 'did:example:1',
      issuanceDate: '2024-01-01T00:00:00Z',
    };
    const b = {
      issuanceDate: '2024-01-01T00:00:00Z',
      issuer: 'did:example:1',
      type: ['VerifiableCredential'],
      '@context': [CONTEXT_URLS.credentialsV1],
    };
    expect(await canonicalize(a)).toBe(await canonicalize(b));
  });

  it('rejects a term no context defines (safe mode), naming it', async () => {
    const error = await failure(
      canonicalize({ '@context': CONTEXT_URLS.credentialsV1, type: 'VerifiableCredential', favouriteColour: 'blue' }),
    );
    expect(error.message).toBe(`invalid JSON-LD: term "favouriteColour" is not defined by the document's @context`);
  });

  it('rejects an undefined type (it would become a relative IRI)', async () => {
    const error = await failure(
      canonicalize({ '@context': CONTEXT_URLS.credentialsV1, type: ['VerifiableCredential', 'MadeUpCredential'] }),
    );
    expect(error.message).toContain('type "MadeUpCredential" is not defined');
  });

  it('rejects a relative @id instead of resolving it against some base', async () => {
    const error = await failure(
      canonicalize({ '@context': CONTEXT_URLS.credentialsV1, id: 'credentials/1', type: 'VerifiableCredential' }),
    );
    expect(error.message).toContain('"credentials/1" is a relative IRI reference');
  });

  it('rejects a property that ActivityStreams maps to a blank node through "@vocab": "_:"', async () => {
    const error = await failure(
      canonicalize({ '@context': CONTEXT_URLS.activityStreams, type: 'Note', mood: 'sunny' }),
    );
    expect(error.message).toBe(
      `invalid JSON-LD: term "mood" is not defined by the document's @context (its "@vocab": "_:" would make it a blank node)`,
    );
  });

  it('rejects an unknown context with an error naming the URL, before any network could be touched', async () => {
    const error = await failure(
      canonicalize({
        '@context': [CONTEXT_URLS.credentialsV1, 'https://example.com/my-context/v1'],
        type: 'VerifiableCredential',
      }),
    );
    expect(error.message).toBe(
      'unknown JSON-LD context https://example.com/my-context/v1: it is not bundled and remote context loading is disabled',
    );
  });

  it('rejects an unknown context referenced from inside another context too', async () => {
    const documentLoader = createDocumentLoader({
      contexts: {
        'https://example.com/outer': { '@context': ['https://example.com/inner', { a: 'https://example.com/#a' }] },
      },
    });
    const error = await failure(canonicalize({ '@context': 'https://example.com/outer', a: 1 }, { documentLoader }));
    expect(error.message).toContain('https://example.com/inner');
  });

  it('rejects malformed JSON-LD as a bad_request, not a crash', async () => {
    await failure(canonicalize({ '@context': 42, a: 1 }));
    await failure(canonicalize({ '@context': { a: { '@id': 42 } }, a: 1 }));
    await failure(canonicalize({ '@context': CONTEXT_URLS.credentialsV1, '@id': { nested: true } }));
    await failure(canonicalize(null));
    await failure(canonicalize('a string' as unknown as object));
  });

  it('refuses to redefine a protected term', async () => {
    const context = [CONTEXT_URLS.credentialsV1, { VerifiableCredential: 'https://example.org/#NotACredential' }];
    const error = await failure(canonicalize({ '@context': context, type: 'VerifiableCredential' }));
    expect(error.message).toMatch(/protected term/);
  });

  it("canonicalises blank-node cycles (the W3C suite's circles; the work factor of 1 refused them)", async () => {
    const ring = Array.from({ length: 12 }, (_, i) => ({
      '@id': `_:n${i}`,
      'https://example.org/#next': { '@id': `_:n${(i + 1) % 12}` },
    }));
    const nquads = await canonicalize({ '@graph': ring });
    expect(nquads).toContain('_:c14n0 <https://example.org/#next> _:c14n');
    expect(nquads.trim().split('\n')).toHaveLength(12);
  });

  it('gives up on graphs too costly to canonicalise with a bad_request, at the bound the caller sets', async () => {
    const ring = Array.from({ length: 100 }, (_, i) => ({
      '@id': `_:n${i}`,
      'https://example.org/#next': { '@id': `_:n${(i + 1) % 100}` },
    }));
    const error = await failure(canonicalize({ '@graph': ring }, { maxDeepIterations: 50 }));
    expect(error.message).toBe('JSON-LD document cannot be canonicalised: Maximum deep iterations exceeded (50).');
  });

  it('drops null members, so a credential with "proof": null canonicalises as one without proof (the log leaf rule)', async () => {
    const { proof: _proof, ...unsigned } = { ...anchorCredential(), proof: undefined };
    const lenient = { allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS };
    expect(await canonicalize({ ...anchorCredential(), proof: null }, lenient)).toBe(
      await canonicalize(unsigned, lenient),
    );
  });

  it("drops anything unmappable, like aries' processor, when allowUndefinedTerms is 'any'", async () => {
    const document = {
      '@context': CONTEXT_URLS.credentialsV1,
      id: 'https://example.org/c/1',
      type: ['VerifiableCredential', 'Custom'],
      issuer: 'did:example:1',
      colour: 'blue',
    };
    expect(await canonicalize(document, { allowUndefinedTerms: 'any' })).toBe(
      '<https://example.org/c/1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://www.w3.org/2018/credentials#VerifiableCredential> .\n' +
        '<https://example.org/c/1> <https://www.w3.org/2018/credentials#issuer> <did:example:1> .\n',
    );
    expect(await canonicalize({ ...document, id: 'relative/id' }, { allowUndefinedTerms: 'any' })).toBe('');
  });

  describe("Orb's anchor credential", () => {
    it('fails safe mode: href, rel and AnchorLink are defined by none of its contexts', async () => {
      const error = await failure(canonicalize(anchorCredential()));
      expect(error.message).toContain('"href"');
    });

    it('canonicalises with those three terms allowed to drop, exactly as Orb does', async () => {
      const nquads = await canonicalize(anchorCredential(), { allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS });
      expect(nquads).toContain(
        '<https://w3id.org/activityanchors#anchor> "hl:uEiBu8Hq9v0OVhYV0mRN3pSvVTeSa8qqV2rh0sGmfxJ8-FQ"',
      );
      expect(nquads).toContain('<https://w3id.org/activityanchors#profile> "https://w3id.org/orb#v0"');
      expect(nquads).not.toContain('uEiCJWtyh4F');
      expect(nquads).not.toContain('linkset');
      expect(nquads.trim().split('\n')).toHaveLength(7);
    });

    it('still rejects any other undefined term', async () => {
      const document = { ...anchorCredential(), extra: 'x' };
      const error = await failure(canonicalize(document, { allowUndefinedTerms: ANCHOR_CREDENTIAL_UNDEFINED_TERMS }));
      expect(error.message).toContain('"extra"');
    });
  });
});
