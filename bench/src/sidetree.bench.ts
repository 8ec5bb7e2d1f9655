/**
 * Sidetree hot paths, single-threaded and pure (no HTTP, no storage): ingest parsing of operations as
 * `POST /operations` receives them, and resolution of a DID from its stored operation bytes. The service
 * targets are ≥ 2,000 accepted operations/s with p99 ≤ 50 ms on 2 cores, and resolution p99 ≤ 10 ms; the
 * protocol work measured here must leave most of that budget to the service.
 */
import { KeyPair } from '@anchor/common/crypto';
import {
  addPublicKeys,
  addServices,
  createRequest,
  documentKey,
  parseOperation,
  renderNodeResolution,
  resolveOperations,
  serializeRequest,
  service,
  updateRequest,
  type PublishedOperationRecord,
} from '@anchor/sidetree';
import { atLeast, atMost, percentile, rate, report, summary } from './lib/report.js';

const SECTION = 'sidetree';
const SUFFIX = 'EiDyOQbbZAa3aiRzeCkV7LOx3SERjjH93EXoIM3UoN4oWg';

/** Distinct Ed25519 update requests, each signed by its own key (so the key cache does not flatter us). */
function updateBodies(count: number): Buffer[] {
  return Array.from({ length: count }, (_, index) =>
    serializeRequest(
      updateRequest({
        didSuffix: SUFFIX,
        updateKey: KeyPair.generate('Ed25519'),
        nextUpdateKey: KeyPair.generate('Ed25519'),
        patches: [addServices(service(`svc-${index}`, 'LinkedDomains', `https://service-${index}.example.com`))],
      }),
    ),
  );
}

/** A DID with a create and `updates` updates, as the bytes a node stores. */
function storedHistory(updates: number): { didSuffix: string; did: string; requests: Buffer[] } {
  const keys = Array.from({ length: updates + 1 }, () => KeyPair.generate('Ed25519'));
  const created = createRequest({
    recoveryKey: KeyPair.generate('Ed25519'),
    updateKey: keys[0] as KeyPair,
    anchorOrigin: 'https://node1.example.com',
    patches: [
      addPublicKeys(
        documentKey('key-1', KeyPair.generate('Ed25519'), { purposes: ['authentication', 'assertionMethod'] }),
      ),
    ],
  });
  const requests = [serializeRequest(created.request)];
  for (let index = 0; index < updates; index++) {
    requests.push(
      serializeRequest(
        updateRequest({
          didSuffix: created.didSuffix,
          updateKey: keys[index] as KeyPair,
          nextUpdateKey: keys[index + 1] as KeyPair,
          patches: [addServices(service(`svc-${index}`, 'LinkedDomains', `https://service-${index}.example.com`))],
        }),
      ),
    );
  }
  return { didSuffix: created.didSuffix, did: created.did, requests };
}

async function main(): Promise<void> {
  const bodies = updateBodies(4000);
  let next = 0;
  report(
    SECTION,
    'ingest parse of Ed25519 updates (verify included)',
    await rate(() => parseOperation(bodies[next++ % bodies.length] as Buffer)),
    'ops/s',
    atLeast(3_000),
  );
  const latencies = bodies.slice(0, 2000).map((body) => {
    const started = performance.now();
    parseOperation(body);
    return performance.now() - started;
  });
  report(SECTION, 'ingest parse p99', percentile(latencies, 99), 'ms', atMost(5));

  const history = storedHistory(20);
  const resolveFromBytes = () => {
    const published: PublishedOperationRecord[] = history.requests.map((request, index) => ({
      operation: parseOperation(request, { mode: 'anchored' }),
      anchor: { canonicalReference: `uEi-anchor-${index}`, transactionTime: 1_700_000_000 + index },
    }));
    return renderNodeResolution(resolveOperations(history.didSuffix, { published }), {
      did: history.did,
      domain: 'node1.example.com',
    });
  };
  const resolutions = Array.from({ length: 300 }, () => {
    const started = performance.now();
    resolveFromBytes();
    return performance.now() - started;
  });
  report(SECTION, 'resolve 21 stored operations from bytes p99', percentile(resolutions, 99), 'ms', atMost(10));
  report(
    SECTION,
    'resolve 21 stored operations from bytes',
    await rate(resolveFromBytes, { batch: 1 }),
    'ops/s',
    atLeast(200),
  );

  summary();
}

await main();
