import { hash } from 'node:crypto';
import { rdfCanonize, type RdfQuad, type RdfTerm } from './jsonld-engine.js';

/** rdf-canonize's canonical issuer prefix: the labels step 7 writes (and leaves alone on input, see below). */
const CANONICAL_PREFIX = 'c14n';

/**
 * RDFC-1.0 of a dataset whose blank nodes all have distinct first-degree hashes, which is every credential with
 * distinguishable blank nodes (each tag, proof, subject without an id): steps 2-5 and 7 of the algorithm, done as
 * rdf-canonize 5 does them, step for step and with its serialiser, but synchronously and with one one-shot hash
 * per blank node (rdf-canonize awaits each hash and feeds it quad by quad). Returns undefined when two first-degree
 * hashes are equal: such a dataset needs Hash N-Degree Quads (step 6), and the caller runs rdf-canonize on it.
 *
 * Held equal to rdf-canonize on the W3C rdf-canon suite (canonical N-Quads and the identifier map) and on the
 * log's credentials (`rdfc-unique.test.ts`); rdf-canonize's quirks are kept: a blank node labelled `c14n...` on
 * input keeps that label in the output, and a blank predicate is neither tracked nor relabelled.
 */
export function canonizeUniqueFirstDegree(
  dataset: readonly RdfQuad[],
  hashAlgorithm: 'sha256' | 'sha384',
  canonicalIdMap?: Map<string, string>,
): string | undefined {
  // An issuer map that already holds labels would change what rdf-canonize issues: not this path's case.
  if (canonicalIdMap !== undefined && canonicalIdMap.size > 0) return undefined;
  const serialize = rdfCanonize.NQuads.serializeQuadComponents;

  // Step 2: the quads of each blank node, in rdf-canonize's order (subject, object, graph; a quad once per node).
  const quadsOf = new Map<string, Set<RdfQuad>>();
  const track = (quad: RdfQuad, term: RdfTerm): void => {
    if (term.termType !== 'BlankNode') return;
    const quads = quadsOf.get(term.value);
    if (quads) quads.add(quad);
    else quadsOf.set(term.value, new Set([quad]));
  };
  for (const quad of dataset) {
    track(quad, quad.subject);
    track(quad, quad.object);
    track(quad, quad.graph);
  }

  // Steps 5.3-5.4: Hash First Degree Quads (the node itself _:a, any other blank node _:z), then issue canonical
  // labels in the order of the hashes.
  const nodeOfHash = new Map<string, string>();
  for (const [id, quads] of quadsOf) {
    const lines: string[] = [];
    const firstDegree = (term: RdfTerm): RdfTerm =>
      term.termType === 'BlankNode' ? { termType: 'BlankNode', value: term.value === id ? 'a' : 'z' } : term;
    for (const quad of quads)
      lines.push(
        serialize(firstDegree(quad.subject), quad.predicate, firstDegree(quad.object), firstDegree(quad.graph)),
      );
    lines.sort();
    const firstDegreeHash = hash(hashAlgorithm, lines.join(''), 'hex');
    if (nodeOfHash.has(firstDegreeHash)) return undefined;
    nodeOfHash.set(firstDegreeHash, id);
  }
  const canonical = canonicalIdMap ?? new Map<string, string>();
  let counter = 0;
  for (const firstDegreeHash of [...nodeOfHash.keys()].sort())
    canonical.set(nodeOfHash.get(firstDegreeHash) as string, `${CANONICAL_PREFIX}${counter++}`);

  // Step 7: every quad with its canonical labels, sorted.
  const relabel = (term: RdfTerm): RdfTerm =>
    term.termType === 'BlankNode' && !term.value.startsWith(CANONICAL_PREFIX)
      ? { termType: 'BlankNode', value: canonical.get(term.value) as string }
      : term;
  const lines = dataset.map((quad) =>
    serialize(relabel(quad.subject), quad.predicate, relabel(quad.object), relabel(quad.graph)),
  );
  lines.sort();
  return lines.join('');
}
