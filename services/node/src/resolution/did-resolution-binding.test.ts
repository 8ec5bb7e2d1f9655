import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postOperation, startTestNode, TestDid, waitPublished, type TestNode } from '../testing/test-node.js';
import { negotiateResolution, RESOLUTION_LD_MEDIA_TYPE } from './resolution-media-types.js';

const RESULT = 'application/did-resolution';
const PATHS = ['/sidetree/v1/identifiers', '/1.0/identifiers'] as const;

interface Answer {
  status: number;
  contentType: string | null;
  vary: string | null;
  text: string;
  body: any;
}

async function get(url: string, accept?: string): Promise<Answer> {
  const response = await fetch(url, accept === undefined ? {} : { headers: { accept } });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    vary: response.headers.get('vary'),
    text,
    body: JSON.parse(text) as unknown,
  };
}

/** Every value of a metadata structure that DID Core §7.3 does not allow (numbers), with its path. */
function numbersIn(value: unknown, path = ''): string[] {
  if (typeof value === 'number') return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => numbersIn(item, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, member]) => numbersIn(member, `${path}.${key}`));
  return [];
}

describe('negotiateResolution', () => {
  it('selects the binding only for its media types named explicitly and not out-ranked', () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'seed'],
      ['', 'seed'],
      ['*/*', 'seed'],
      ['application/json', 'seed'],
      ['application/ld+json', 'seed'],
      ['application/ld+json;profile="https://www.w3.org/ns/activitystreams"', 'seed'],
      ['application/did-resolution', `result did-resolution ${RESULT}`],
      ['application/ld+json;profile="https://w3id.org/did-resolution"', `result ld ${RESOLUTION_LD_MEDIA_TYPE}`],
      [
        'Application/LD+JSON; profile=https://w3id.org/did-resolution; charset=utf-8',
        `result ld ${RESOLUTION_LD_MEDIA_TYPE}`,
      ],
      ['application/did+ld+json', 'document application/did+ld+json'],
      ['application/did+json', 'document application/did+json'],
      ['application/did', 'document application/did'],
      ['application/json, application/did-resolution', `result did-resolution ${RESULT}`],
      ['application/json, application/did-resolution;q=0.5', 'seed'],
      ['application/did-resolution;q=0', 'seed'],
      ['application/did+json;q=0.4, application/did-resolution;q=0.9, */*;q=0.1', `result did-resolution ${RESULT}`],
    ];
    for (const [accept, expected] of cases) {
      const representation = negotiateResolution(accept);
      const text =
        representation.kind === 'seed'
          ? 'seed'
          : representation.kind === 'result'
            ? `result ${representation.form} ${representation.mediaType}`
            : `document ${representation.mediaType}`;
      expect(text, String(accept)).toBe(expected);
    }
  });
});

describe('the W3C DID Resolution HTTP binding of the resolution endpoint and the driver path', () => {
  let node: TestNode;
  let published: TestDid;
  let deactivated: TestDid;
  let deactivatedCanonical: string;
  let unpublished: TestDid;
  let unknown: TestDid;

  beforeAll(async () => {
    node = await startTestNode();
    published = new TestDid(node.url);
    deactivated = new TestDid(node.url);
    unknown = new TestDid(node.url);
    expect((await postOperation(node.url, published.created.request)).status).toBe(200);
    expect((await postOperation(node.url, deactivated.created.request)).status).toBe(200);
    await waitPublished(node.url, published.did);
    await waitPublished(node.url, deactivated.did);
    deactivatedCanonical = (await get(at(PATHS[0], deactivated.did))).body.didDocumentMetadata.canonicalId as string;
    expect(deactivatedCanonical).toMatch(/^did:node:uEi[^:]+:/);
    expect((await postOperation(node.url, deactivated.deactivate())).status).toBe(200);
    await waitPublished(node.url, deactivated.did, 2);
    // Never sent to the node: resolved from its long form alone.
    unpublished = new TestDid(node.url);
  });
  afterAll(async () => {
    await node.stop();
  });

  const at = (path: string, did: string, query = '') => `${node.url}${path}/${did}${query}`;

  it("keeps Orb's answer byte for byte without a binding media type, on both paths", async () => {
    const seed = await get(at(PATHS[0], published.did));
    expect(seed.status).toBe(200);
    expect(seed.contentType).toBe('application/did+ld+json; charset=utf-8');
    expect(seed.body['@context']).toBe('https://w3id.org/did-resolution/v1');
    expect(seed.body.didDocumentMetadata.method.publishedOperations[0].transactionTime).toEqual(expect.any(Number));
    for (const path of PATHS) {
      for (const accept of [undefined, '*/*', 'application/json', 'application/ld+json']) {
        const answer = await get(at(path, published.did), accept);
        expect(answer.text, `${path} ${accept}`).toBe(seed.text);
        expect(answer.contentType).toBe(seed.contentType);
        expect(answer.vary).toBe('Accept');
      }
    }
    expect((await get(at(PATHS[1], 'did:node:nonsense'))).status).toBe(400);
  });

  for (const path of PATHS) {
    describe(path, () => {
      it('published: 200, the result with contentType, metadata without numbers (integers as decimal strings)', async () => {
        const seed = (await get(at(path, published.did))).body;
        const answer = await get(at(path, published.did), RESULT);
        expect(answer.status).toBe(200);
        expect(answer.contentType).toBe('application/did-resolution; charset=utf-8');
        expect(answer.vary).toBe('Accept');
        expect(Object.keys(answer.body)).toEqual(['didDocument', 'didResolutionMetadata', 'didDocumentMetadata']);
        expect(answer.body.didDocument).toEqual(seed.didDocument);
        // The document's media type; the Content-Type, application/did-resolution, names the result (spec example).
        expect(answer.body.didResolutionMetadata).toEqual({ contentType: 'application/did' });
        expect(numbersIn(answer.body.didDocumentMetadata)).toEqual([]);
        const [operation] = answer.body.didDocumentMetadata.method.publishedOperations;
        const [seedOperation] = seed.didDocumentMetadata.method.publishedOperations;
        expect(operation.transactionTime).toBe(String(seedOperation.transactionTime));
        expect(operation.transactionNumber).toBe(String(seedOperation.transactionNumber));
        expect(operation.protocolVersion).toBe('0');
        expect({ ...answer.body.didDocumentMetadata, method: undefined }).toEqual({
          ...seed.didDocumentMetadata,
          method: undefined,
        });

        const ld = await get(at(path, published.did), RESOLUTION_LD_MEDIA_TYPE);
        expect(ld.status).toBe(200);
        expect(ld.contentType).toBe(`${RESOLUTION_LD_MEDIA_TYPE}; charset=utf-8`);
        expect(ld.body['@context']).toBe('https://w3id.org/did-resolution/v1');
        expect(ld.body.didResolutionMetadata).toEqual({ contentType: 'application/did+ld+json' });
        expect(ld.body.didDocumentMetadata).toEqual(answer.body.didDocumentMetadata);
      });

      it('unpublished (a long-form DID): 200 with method.published false', async () => {
        const answer = await get(at(path, unpublished.created.longFormDid), RESULT);
        expect(answer.status).toBe(200);
        expect(answer.body.didDocument.id).toBe(unpublished.created.longFormDid);
        expect(answer.body.didDocumentMetadata.equivalentId).toContain(unpublished.did);
        expect(answer.body.didDocumentMetadata.method.published).toBe(false);
      });

      it("deactivated: 410 with Orb's {@context, id} document and deactivated true, in every form, uAAA and canonical", async () => {
        for (const did of [deactivated.did, deactivatedCanonical]) {
          const document = { '@context': ['https://www.w3.org/ns/did/v1'], id: did };
          const answer = await get(at(path, did), RESULT);
          expect(answer.status, did).toBe(410);
          expect(answer.contentType).toBe('application/did-resolution; charset=utf-8');
          expect(answer.body.didDocument).toEqual(document);
          expect(answer.body.didResolutionMetadata).toEqual({ contentType: 'application/did' });
          expect(answer.body.didDocumentMetadata.deactivated).toBe(true);
          expect(numbersIn(answer.body.didDocumentMetadata)).toEqual([]);
          const ld = await get(at(path, did), RESOLUTION_LD_MEDIA_TYPE);
          expect(ld.status).toBe(410);
          expect(ld.body.didDocument).toEqual(document);
          expect(ld.body.didResolutionMetadata).toEqual({ contentType: 'application/did+ld+json' });
          expect(ld.body.didDocumentMetadata).toEqual(answer.body.didDocumentMetadata);
          for (const mediaType of ['application/did+ld+json', 'application/did']) {
            const bare = await get(at(path, did), mediaType);
            expect(bare.status, mediaType).toBe(410);
            expect(bare.contentType).toBe(`${mediaType}; charset=utf-8`);
            expect(bare.body).toEqual(document);
          }
          const json = await get(at(path, did), 'application/did+json');
          expect([json.status, json.contentType, json.body]).toEqual([
            410,
            'application/did+json; charset=utf-8',
            { id: did },
          ]);
        }
      });

      it('unknown, malformed, unsupported method, bad options: errors as resolution results with their status', async () => {
        const cases: Array<[string, string, number, string, string]> = [
          [unknown.did, '', 404, 'notFound', 'NOT_FOUND'],
          ['did:node:uAAA:notamultihash', '', 400, 'invalidDid', 'INVALID_DID'],
          ['not-a-did', '', 400, 'invalidDid', 'INVALID_DID'],
          ['did:example:123456789abcdefghi', '', 501, 'methodNotSupported', 'METHOD_NOT_SUPPORTED'],
          [published.did, '?versionTime=yesterday', 400, 'invalidOptions', 'INVALID_OPTIONS'],
          [published.did, '?versionId=unknown', 400, 'invalidOptions', 'INVALID_OPTIONS'],
        ];
        for (const [did, query, status, code, type] of cases) {
          const answer = await get(at(path, did, query), RESULT);
          expect(answer.status, `${did}${query}`).toBe(status);
          expect(answer.contentType).toBe('application/did-resolution; charset=utf-8');
          expect(answer.body.didDocument).toBeNull();
          expect(answer.body.didDocumentMetadata).toEqual({});
          expect(answer.body.didResolutionMetadata.error).toMatchObject({
            type: `https://www.w3.org/ns/did#${type}`,
            title: expect.any(String),
            detail: expect.any(String),
          });
          const ld = await get(at(path, did, query), RESOLUTION_LD_MEDIA_TYPE);
          expect(ld.status).toBe(status);
          expect(ld.body).toMatchObject({
            '@context': 'https://w3id.org/did-resolution/v1',
            didDocument: null,
            didResolutionMetadata: { error: code, errorMessage: expect.any(String) },
          });
          const document = await get(at(path, did, query), 'application/did+json');
          expect(document.status).toBe(status);
          expect(document.body.message).toEqual(expect.any(String));
        }
      });

      it('dereferences DID URLs: the document, a version, a verification method; dereferencingMetadata with contentType', async () => {
        const DEREF = 'application/did-url-dereferencing';
        const seed = (await get(at(path, published.did))).body;
        const resolution = (await get(at(path, published.did), RESULT)).body;
        const whole = await get(at(path, published.did), DEREF);
        expect([whole.status, whole.contentType, whole.vary]).toEqual([200, `${DEREF}; charset=utf-8`, 'Accept']);
        expect(whole.body).toEqual({
          dereferencingMetadata: { contentType: 'application/did' },
          contentStream: seed.didDocument,
          contentMetadata: resolution.didDocumentMetadata,
        });
        const { versionId } = resolution.didDocumentMetadata as { versionId: string };
        const version = await get(at(path, encodeURIComponent(`${published.did}?versionId=${versionId}`)), DEREF);
        expect(version.status).toBe(200);
        expect(version.body.contentStream).toEqual(seed.didDocument);

        const method = (seed.didDocument.verificationMethod as Array<{ id: string }>)[0]!;
        const fragment = method.id.slice(method.id.indexOf('#') + 1);
        const key = await get(at(path, encodeURIComponent(`${published.did}#${fragment}`)), DEREF);
        expect(key.status).toBe(200);
        expect(key.body.dereferencingMetadata).toEqual({ contentType: 'application/did' });
        expect(key.body.contentStream).toEqual({ '@context': seed.didDocument['@context'], ...method });
        expect(key.body.contentMetadata).toEqual(resolution.didDocumentMetadata);
        const bare = await get(at(path, encodeURIComponent(`${published.did}#${fragment}`)), 'application/did+json');
        expect([bare.status, bare.contentType, bare.body]).toEqual([
          200,
          'application/did+json; charset=utf-8',
          method,
        ]);

        const gone = await get(at(path, deactivated.did), DEREF);
        expect(gone.status).toBe(410);
        expect(gone.body.contentStream).toEqual({ '@context': ['https://www.w3.org/ns/did/v1'], id: deactivated.did });
        expect(gone.body.contentMetadata.deactivated).toBe(true);
      });

      it('refuses DID URLs it cannot dereference with the error as a dereferencing result and its status', async () => {
        const DEREF = 'application/did-url-dereferencing';
        const cases: Array<[string, number, string]> = [
          [encodeURIComponent(`${published.did}#no-such-key`), 404, 'NOT_FOUND'],
          [unknown.did, 404, 'NOT_FOUND'],
          [encodeURIComponent(`${published.did}?service=files&relativeRef=/a.pdf`), 501, 'FEATURE_NOT_SUPPORTED'],
          [encodeURIComponent(`${published.did}/path`), 501, 'FEATURE_NOT_SUPPORTED'],
          ['not-a-did', 400, 'INVALID_DID_URL'],
          [encodeURIComponent(`${published.did}#a b`), 400, 'INVALID_DID_URL'],
          ['did:example:123', 501, 'METHOD_NOT_SUPPORTED'],
          [encodeURIComponent(`${published.did}?versionId=unknown`), 400, 'INVALID_OPTIONS'],
        ];
        for (const [input, status, type] of cases) {
          const answer = await get(at(path, input), DEREF);
          expect(answer.status, input).toBe(status);
          expect(answer.contentType).toBe(`${DEREF}; charset=utf-8`);
          expect(answer.body).toEqual({
            dereferencingMetadata: {
              error: {
                type: `https://www.w3.org/ns/did#${type}`,
                title: expect.any(String),
                detail: expect.any(String),
              },
            },
            contentStream: null,
            contentMetadata: {},
          });
        }
        // resolve() takes DIDs only: a DID URL asked for as a resolution result is an invalid DID.
        const asResult = await get(at(path, encodeURIComponent(`${published.did}#key`)), RESULT);
        expect(asResult.status).toBe(400);
        expect(asResult.body.didResolutionMetadata.error.type).toBe('https://www.w3.org/ns/did#INVALID_DID');
      });

      it('answers the bare document for the document media types', async () => {
        const seed = (await get(at(path, published.did))).body;
        const ld = await get(at(path, published.did), 'application/did+ld+json');
        expect(ld.status).toBe(200);
        expect(ld.contentType).toBe('application/did+ld+json; charset=utf-8');
        expect(ld.body).toEqual(seed.didDocument);
        const json = await get(at(path, published.did), 'application/did+json');
        expect(json.contentType).toBe('application/did+json; charset=utf-8');
        const { '@context': _context, ...withoutContext } = seed.didDocument as Record<string, unknown>;
        expect(json.body).toEqual(withoutContext);
        expect((await get(at(path, published.did), 'application/did')).body).toEqual(seed.didDocument);
      });
    });
  }
});
