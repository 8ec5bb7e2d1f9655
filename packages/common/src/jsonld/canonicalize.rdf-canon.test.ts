import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import {
  RDF_CANON_MAX_DEEP_ITERATIONS,
  canonicalize,
  canonizeDataset,
  defaultMaxDeepIterations,
} from './canonicalize.js';
import { jsonld, rdfCanonize } from './jsonld-engine.js';

/**
 * The W3C RDF Dataset Canonicalization (RDFC-1.0) test suite, run from its own manifest over N-Quads input
 * with the module's default work bound. Source, version and licence: vectors/rdf-canon/README.md.
 */
const SUITE = new URL('./vectors/rdf-canon/', import.meta.url);

interface Entry {
  id: string;
  type: 'rdfc:RDFC10EvalTest' | 'rdfc:RDFC10MapTest' | 'rdfc:RDFC10NegativeEvalTest';
  name: string;
  action: string;
  result?: string;
  hashAlgorithm?: 'SHA384';
}

const manifest = JSON.parse(readFileSync(new URL('manifest.jsonld', SUITE), 'utf8')) as { entries: Entry[] };
const read = (path: string): string => readFileSync(new URL(path, SUITE), 'utf8');
const hashOf = (entry: Entry) => (entry.hashAlgorithm === 'SHA384' ? 'sha384' : 'sha256') as 'sha256' | 'sha384';
const ofType = (type: Entry['type']) => manifest.entries.filter((entry) => entry.type === type);

const ran = new Map<Entry['type'], number>();
const count = (type: Entry['type']) => ran.set(type, (ran.get(type) ?? 0) + 1);

describe('W3C rdf-canon test suite (RDFC-1.0)', () => {
  afterAll(() => {
    const total = [...ran.values()].reduce((sum, n) => sum + n, 0);
    console.log(
      `rdf-canon: ${total} of ${manifest.entries.length} W3C vectors ran (${[...ran].map(([type, n]) => `${n} ${type.slice(5)}`).join(', ')})`,
    );
  });

  it('has the suite it claims to run', () => {
    expect(ofType('rdfc:RDFC10EvalTest')).toHaveLength(64);
    expect(ofType('rdfc:RDFC10MapTest')).toHaveLength(21);
    expect(ofType('rdfc:RDFC10NegativeEvalTest')).toHaveLength(1);
  });

  it.each(ofType('rdfc:RDFC10EvalTest').map((entry) => [entry.id, entry.name, entry] as const))(
    '%s %s',
    async (_id, _name, entry) => {
      const output = await canonizeDataset(read(entry.action), { hashAlgorithm: hashOf(entry) });
      expect(output).toBe(read(entry.result ?? ''));
      count(entry.type);
    },
  );

  it.each(ofType('rdfc:RDFC10MapTest').map((entry) => [entry.id, entry.name, entry] as const))(
    '%s %s',
    async (_id, _name, entry) => {
      const canonicalIdMap = new Map<string, string>();
      await canonizeDataset(read(entry.action), { hashAlgorithm: hashOf(entry), canonicalIdMap });
      expect(Object.fromEntries(canonicalIdMap)).toEqual(JSON.parse(read(entry.result ?? '')));
      count(entry.type);
    },
  );

  it.each(ofType('rdfc:RDFC10NegativeEvalTest').map((entry) => [entry.id, entry.name, entry] as const))(
    '%s %s is refused, quickly',
    async (_id, _name, entry) => {
      const started = performance.now();
      await expect(canonizeDataset(read(entry.action))).rejects.toThrow(/Maximum deep iterations exceeded/);
      expect(performance.now() - started).toBeLessThan(2_000);
      count(entry.type);
    },
  );
});

/**
 * The suite's input as the JSON-LD document JSON-LD 1.1 §8.4 (Serialize RDF as JSON-LD) makes of it. jsonld.js
 * 9's `fromRDF` names a blank-node graph by its bare label (`g`, a relative IRI, so safe mode refuses it)
 * where the algorithm gives its blank node identifier `_:g`, as it does for subjects and objects: the quads
 * are handed over with the identifier the algorithm uses.
 */
async function asJsonLd(nquads: string): Promise<object[]> {
  const quads = rdfCanonize.NQuads.parse(nquads) as { graph: { termType: string; value: string } }[];
  return jsonld.fromRDF(
    quads.map((quad) =>
      quad.graph.termType === 'BlankNode'
        ? { ...quad, graph: { ...quad.graph, value: `_:${quad.graph.value}` } }
        : quad,
    ),
  );
}

describe('W3C rdf-canon test suite as JSON-LD documents (canonicalize, safe mode, default bound)', () => {
  let ranAsJsonLd = 0;
  afterAll(() =>
    console.log(`rdf-canon as JSON-LD: ${ranAsJsonLd} of ${ofType('rdfc:RDFC10EvalTest').length} eval vectors ran`),
  );

  it.each(ofType('rdfc:RDFC10EvalTest').map((entry) => [entry.id, entry.name, entry] as const))(
    '%s %s',
    async (_id, _name, entry) => {
      const document = await asJsonLd(read(entry.action));
      expect(await canonicalize(document, { hashAlgorithm: hashOf(entry) })).toBe(read(entry.result ?? ''));
      ranAsJsonLd++;
    },
  );

  it('names a blank-node graph _:g, which safe mode takes (057c; jsonld.js alone gives the relative "g")', async () => {
    const nquads = read('rdfc10/test057-in.nq');
    expect(await asJsonLd(nquads)).toMatchObject([{ '@id': '_:g' }]);
    await expect(canonicalize(await jsonld.fromRDF(rdfCanonize.NQuads.parse(nquads)))).rejects.toThrow(
      'invalid JSON-LD: @id "g" is a relative IRI reference',
    );
  });

  it('takes an IRI holding a non-ASCII space as absolute (RFC 3987; 060c), refuses one with an ASCII space', async () => {
    const withSpace = (space: string) => ({ '@id': 'urn:ex:s', 'urn:ex:p': { '@id': `urn:ex:${space}` } });
    expect(await canonicalize(withSpace('\u00a0'))).toBe('<urn:ex:s> <urn:ex:p> <urn:ex:\u00a0> .\n');
    expect(await canonicalize(withSpace('\u3000'))).toBe('<urn:ex:s> <urn:ex:p> <urn:ex:\u3000> .\n');
    await expect(canonicalize(withSpace(' '))).rejects.toThrow('@id "urn:ex: " is a relative IRI reference');
    await expect(canonicalize(withSpace('\t'))).rejects.toThrow('is a relative IRI reference');
  });

  it("refuses 074c's poison graph on this path too, quickly", async () => {
    const started = performance.now();
    await expect(canonicalize(await asJsonLd(read('rdfc10/test074-in.nq')))).rejects.toThrow(
      'JSON-LD document cannot be canonicalised: Maximum deep iterations exceeded (1000).',
    );
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('the work bound as JSON-LD input meets it', () => {
  /** A clique of blank nodes, as 074c's, written as JSON-LD: what add-vc or a proof check would receive. */
  const clique = (size: number) => ({
    '@graph': Array.from({ length: size }, (_, i) => ({
      '@id': `_:n${i}`,
      'https://example.org/#p': Array.from({ length: size }, (_, j) => j)
        .filter((j) => j !== i)
        .map((j) => ({ '@id': `_:n${j}` })),
    })),
  });

  it("refuses 074c's 10-node clique as a bad_request naming the bound", async () => {
    const error = await canonicalize(clique(10)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
    expect((error as AppError).message).toBe(
      'JSON-LD document cannot be canonicalised: Maximum deep iterations exceeded (1000).',
    );
  });

  it('takes a smaller clique the default refuses when the caller raises the bound', async () => {
    await expect(canonicalize(clique(6))).rejects.toThrow(/Maximum deep iterations exceeded \(1000\)/);
    const nquads = await canonicalize(clique(6), { maxDeepIterations: 100_000 });
    expect(nquads.trim().split('\n')).toHaveLength(30);
  });

  it('gives large documents fewer calls: 1,000 up to 1,000 quads, then a million calls times quads in all', async () => {
    expect([0, 36, 1_000, 1_001, 4_000, 2_000_000].map(defaultMaxDeepIterations)).toEqual([
      RDF_CANON_MAX_DEEP_ITERATIONS,
      1000,
      1000,
      999,
      250,
      0,
    ]);
    // Two hubs sharing 2,000 indistinguishable leaves: 4,000 quads, so 250 calls.
    const hubs = {
      '@graph': [0, 1].map((h) => ({
        '@id': `_:h${h}`,
        'https://example.org/#p': Array.from({ length: 2000 }, (_, i) => ({ '@id': `_:l${i}` })),
      })),
    };
    const started = performance.now();
    await expect(canonicalize(hubs)).rejects.toThrow(
      'JSON-LD document cannot be canonicalised: Maximum deep iterations exceeded (250).',
    );
    // The bound (250 calls, in the message) is what keeps it quick; the clock only catches a runaway, with room
    // for a loaded machine (1-2 s quiet, up to 8.6 s seen at load 15).
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it("refuses a bound that is not a count as the caller's error, not the document's", async () => {
    expect(() => canonizeDataset('', { maxDeepIterations: -1 })).toThrow(RangeError);
    expect(() => canonizeDataset('', { maxDeepIterations: 1.5 })).toThrow(RangeError);
    await expect(canonicalize(clique(2), { maxDeepIterations: Number.NaN })).rejects.toThrow(RangeError);
  });
});
