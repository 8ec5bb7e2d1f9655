import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bundledDocumentLoader } from './document-loader.js';
import { jsonld, rdfCanonize, type RdfQuad } from './jsonld-engine.js';
import { canonizeUniqueFirstDegree } from './rdfc-unique.js';

/**
 * The fast path of RDFC-1.0 (distinct first-degree hashes) against rdf-canonize itself, which the W3C suite
 * holds right (canonicalize.rdf-canon.test.ts): on every vector of the suite it either gives rdf-canonize's
 * output and identifier map exactly, or declines.
 */
const SUITE = new URL('./vectors/rdf-canon/', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, SUITE), 'utf8');
const manifest = JSON.parse(read('manifest.jsonld')) as {
  entries: Array<{ id: string; type: string; action: string; result?: string; hashAlgorithm?: string }>;
};
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const withResults = manifest.entries.filter((entry) => entry.type !== 'rdfc:RDFC10NegativeEvalTest');

const reference = (dataset: object[], hashAlgorithm: 'sha256' | 'sha384', canonicalIdMap?: Map<string, string>) =>
  rdfCanonize.canonize(dataset, {
    algorithm: 'RDFC-1.0',
    format: 'application/n-quads',
    maxDeepIterations: 100_000,
    messageDigestAlgorithm: hashAlgorithm,
    ...(canonicalIdMap ? { canonicalIdMap } : {}),
  });

describe('RDFC-1.0 fast path for distinct first-degree hashes', () => {
  it('gives rdf-canonize output and identifier map on every W3C vector it takes, and declines the others', async () => {
    let taken = 0;
    let declined = 0;
    for (const entry of withResults) {
      const hashAlgorithm = entry.hashAlgorithm === 'SHA384' ? 'sha384' : 'sha256';
      const input = read(entry.action);
      const ids = new Map<string, string>();
      const fast = canonizeUniqueFirstDegree(rdfCanonize.NQuads.parse(input) as RdfQuad[], hashAlgorithm, ids);
      if (fast === undefined) {
        declined++;
        expect(ids.size, entry.id).toBe(0);
        continue;
      }
      taken++;
      const referenceIds = new Map<string, string>();
      expect(fast, entry.id).toBe(await reference(rdfCanonize.NQuads.parse(input), hashAlgorithm, referenceIds));
      expect([...ids], entry.id).toEqual([...referenceIds]);
      if (entry.type === 'rdfc:RDFC10EvalTest') expect(fast, entry.id).toBe(read(entry.result ?? ''));
      else expect(Object.fromEntries(ids), entry.id).toEqual(JSON.parse(read(entry.result ?? '')));
    }
    console.log(`rdfc fast path: took ${taken} W3C vectors, declined ${declined}`);
    expect(taken).toBeGreaterThan(40);
    expect(declined).toBeGreaterThan(10);
  });

  it('declines a dataset whose blank nodes look alike (Hash N-Degree Quads is needed)', () => {
    const dataset = rdfCanonize.NQuads.parse('_:x <http://e/p> _:y .\n_:y <http://e/p> _:x .\n') as RdfQuad[];
    expect(canonizeUniqueFirstDegree(dataset, 'sha256')).toBeUndefined();
  });

  it("keeps rdf-canonize's quirks: an input label c14n... stays, a blank predicate is not relabelled", async () => {
    // N-Quads has no blank predicates (generalized RDF, which JSON-LD can produce): that quad is built by hand.
    const dataset = (): RdfQuad[] => [
      ...(rdfCanonize.NQuads.parse(
        '_:c14n7 <http://e/p> "one" .\n_:n <http://e/q> _:c14n7 .\n<http://e/s> <http://e/r> _:n .\n',
      ) as RdfQuad[]),
      {
        subject: { termType: 'BlankNode', value: 'n' },
        predicate: { termType: 'BlankNode', value: 'pred' },
        object: { termType: 'Literal', value: 'two', datatype: { termType: 'NamedNode', value: XSD_STRING } },
        graph: { termType: 'DefaultGraph', value: '' },
      },
    ];
    const fast = canonizeUniqueFirstDegree(dataset(), 'sha256');
    expect(fast).toBeDefined();
    expect(fast).toBe(await reference(dataset(), 'sha256'));
    expect(fast).toContain('_:c14n7 <http://e/p> "one" .');
    expect(fast).toContain(' _:pred "two" .');
  });

  it("gives rdf-canonize's output for credentials with many blank nodes, literals that need escaping and graphs", async () => {
    const credentials = Array.from({ length: 40 }, (_, n) => ({
      '@context': ['https://www.w3.org/2018/credentials/v1', 'https://www.w3.org/ns/activitystreams'],
      id: `https://node1.example.com/vc/${n}`,
      type: ['VerifiableCredential'],
      issuer: 'https://node1.example.com/services/node',
      issuanceDate: '2024-03-01T19:23:24.123Z',
      credentialSubject: {
        ...(n % 2 === 0 ? { id: `https://node1.example.com/anchors/${n}` } : {}),
        type: 'Note',
        name: `Anchor "batch" ${n}\n\t\\ é ${String.fromCodePoint(0x1f600 + n)}`,
        content: { '@value': `<p>${n}</p>`, '@language': 'en' },
        tag: Array.from({ length: n % 9 }, (_, k) => ({
          type: 'Link',
          href: `https://example.org/${n}/${k}?q=<a>`,
          name: `tag ${k % 3}`,
        })),
      },
    }));
    for (const credential of credentials) {
      const dataset = (await jsonld.toRDF(credential, {
        documentLoader: bundledDocumentLoader,
        base: null,
        safe: false,
        eventHandler: ({ next }) => next(),
      })) as RdfQuad[];
      const fast = canonizeUniqueFirstDegree(dataset, 'sha256');
      expect(fast).toBeDefined();
      expect(fast).toBe(await reference(dataset, 'sha256'));
    }
  });
});
