import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KeyPair } from '@anchor/common/crypto';
import { parseByteSize } from '@anchor/common/http';
import { createMetrics, type Metrics } from '@anchor/common/metrics';
import { createMemStoreProvider } from '@anchor/common/storage';
import {
  addPublicKeys,
  addServices,
  createRequest,
  documentKey,
  parseOperation,
  ProtocolRegistry,
  serializeRequest,
  service,
  updateRequest,
  type OperationRequest,
  type ParsedOperation,
} from '@anchor/sidetree';
import { describe, expect, it } from 'vitest';
import { createNodeMetrics } from '../observability/node-metrics.js';
import { encodeRequest, type PublishedOperation } from '../operations/operation-records.js';
import { OperationStores, STORE } from '../operations/operation-stores.js';
import { DidOperationsLoader } from './did-operations.js';
import { estimateCachedDidBytes, type ResolutionCache } from './resolution-cache.js';
import { ResolutionService } from './resolution-service.js';

const protocols = ProtocolRegistry.of(['1.0']);

/**
 * DIDs as a production node holds them: anchored creates with two keys (Ed25519 and P-256) and a service
 * endpoint, every third one updated once since (a key added), each resolved by its canonical id.
 */
class PublishedDids {
  private transactionNumber = 0;
  readonly canonicalIds: string[] = [];

  private constructor(
    readonly stores: OperationStores,
    readonly service: ResolutionService,
    readonly metrics: Metrics,
  ) {}

  static async open(cache: { cacheSize?: number; cacheMaxBytes: number }): Promise<PublishedDids> {
    const stores = await OperationStores.open(createMemStoreProvider());
    const loader = new DidOperationsLoader(
      stores,
      { enabled: true, types: ['create', 'update'], lifetimeMs: 3_600_000 },
      protocols,
    );
    const metrics = createMetrics({ prefix: 'node_', processMetrics: false });
    const service = new ResolutionService(loader, {
      namespace: 'did:node',
      aliases: [],
      domain: 'node.example.com',
      includePublishedOperations: true,
      cacheSize: cache.cacheSize ?? 1_000_000,
      cacheMaxBytes: cache.cacheMaxBytes,
      metrics: createNodeMetrics(metrics),
    });
    return new PublishedDids(stores, service, metrics);
  }

  async add(count: number): Promise<void> {
    const ops = [];
    for (let i = 0; i < count; i++) {
      const updateKey = KeyPair.generate('Ed25519');
      const created = createRequest({
        recoveryKey: KeyPair.generate('Ed25519'),
        updateKey,
        anchorOrigin: 'https://node.example.com/services/node',
        patches: [
          addPublicKeys(
            documentKey('key-1', KeyPair.generate('Ed25519'), { purposes: ['authentication', 'assertionMethod'] }),
            documentKey('key-2', KeyPair.generate('P-256'), { purposes: ['keyAgreement'] }),
          ),
          addServices(service('hub', 'LinkedDomains', `https://${randomBytes(6).toString('hex')}.example.org/`)),
        ],
      });
      const requests: OperationRequest[] = [created.request];
      if ((this.canonicalIds.length + i) % 3 === 0)
        requests.push(
          updateRequest({
            didSuffix: created.didSuffix,
            updateKey,
            nextUpdateKey: KeyPair.generate('Ed25519'),
            patches: [
              addPublicKeys(documentKey('key-3', KeyPair.generate('Ed25519'), { purposes: ['authentication'] })),
            ],
          }),
        );
      let anchorHash = '';
      for (const request of requests) {
        anchorHash = `uEiB${randomBytes(32).toString('base64url')}`;
        const operation = parseOperation(serializeRequest(request), { protocol: protocols.current });
        ops.push(...this.published(operation, anchorHash));
      }
      this.canonicalIds.push(`did:node:${anchorHash}:${created.didSuffix}`);
    }
    await this.stores.provider.batch(ops);
  }

  private published(operation: ParsedOperation, anchorHash: string) {
    const transactionNumber = ++this.transactionNumber;
    const suffix = operation.didSuffix;
    const record: PublishedOperation = {
      suffix,
      type: operation.type,
      request: encodeRequest(operation.canonicalRequest),
      canonicalReference: anchorHash,
      equivalentReferences: [`hl:${anchorHash}:uoQ-${randomBytes(60).toString('base64url')}`],
      transactionTime: Math.floor(Date.now() / 1000),
      transactionNumber,
      operationIndex: 0,
      protocolVersion: protocols.current.protocolVersion,
      anchorOrigin: 'https://node.example.com/services/node',
    };
    return [
      { store: STORE.published, op: 'put' as const, key: `${suffix}:${anchorHash}`, value: record },
      {
        store: STORE.published,
        op: 'put' as const,
        key: suffix,
        value: { anchor: `hl:${anchorHash}:uoQ`, transactionNumber, version: transactionNumber },
      },
    ];
  }

  /** Resolves the DIDs from `from` on, each once. */
  async resolveAll(from = 0): Promise<void> {
    for (const did of this.canonicalIds.slice(from)) await this.service.resolve(did);
  }
}

describe('the resolution cache', () => {
  it('estimates an entry from its requests and rendered answers, growing with each answer', async () => {
    const dids = await PublishedDids.open({ cacheMaxBytes: parseByteSize('1mb') });
    await dids.add(1);
    const [did] = dids.canonicalIds as [string];
    await dids.service.resolve(did);
    const once = dids.service.cacheUsage;
    expect(once.entries).toBe(1);
    await dids.service.resolve(did.replace(/^did:node:[^:]+:/, 'did:node:uAAA:'));
    const twice = dids.service.cacheUsage;
    expect(twice.entries).toBe(1);
    expect(twice.bytes).toBeGreaterThan(once.bytes);
  });

  it('holds its byte bound: least recently used DIDs go first', async () => {
    const bound = parseByteSize('256kb');
    const dids = await PublishedDids.open({ cacheMaxBytes: bound });
    await dids.add(200);
    await dids.resolveAll();
    const { bytes, entries } = dids.service.cacheUsage;
    expect(bytes).toBeLessThanOrEqual(bound);
    expect(entries).toBeGreaterThan(5);
    expect(entries).toBeLessThan(200);
    // The most recent DIDs fill it; the oldest ones were evicted.
    const cache = (dids.service as unknown as { cache: ResolutionCache }).cache;
    const suffixOf = (did: string) => did.slice(did.lastIndexOf(':') + 1);
    expect(cache.get(suffixOf(dids.canonicalIds.at(-1) as string))).toBeDefined();
    expect(cache.get(suffixOf(dids.canonicalIds[0] as string))).toBeUndefined();
    // The estimate of what stays is the sum of the entries' estimates.
    let sum = 0;
    for (const did of dids.canonicalIds.slice(-entries)) {
      const entry = cache.get(suffixOf(did));
      expect(entry).toBeDefined();
      sum += estimateCachedDidBytes(entry!);
    }
    expect(sum).toBe(dids.service.cacheUsage.bytes);
  });

  it('holds the count bound too, and 0 bytes disables it', async () => {
    const counted = await PublishedDids.open({ cacheSize: 7, cacheMaxBytes: parseByteSize('64mb') });
    await counted.add(20);
    await counted.resolveAll();
    expect(counted.service.cacheUsage.entries).toBe(7);
    const off = await PublishedDids.open({ cacheMaxBytes: 0 });
    await off.add(3);
    await off.resolveAll();
    expect(off.service.cacheUsage).toEqual({ bytes: 0, entries: 0 });
  });

  it('reports its bytes and entries as node_resolution_cache_bytes and node_resolution_cache_entries', async () => {
    const dids = await PublishedDids.open({ cacheMaxBytes: parseByteSize('1mb') });
    await dids.add(3);
    await dids.resolveAll();
    const { bytes, entries } = dids.service.cacheUsage;
    expect(entries).toBe(3);
    const { body } = await dids.metrics.exposition();
    expect(body).toContain(`node_resolution_cache_bytes ${bytes}\n`);
    expect(body).toContain('node_resolution_cache_entries 3\n');
    dids.service.invalidate(dids.canonicalIds[0]!.slice(dids.canonicalIds[0]!.lastIndexOf(':') + 1));
    expect((await dids.metrics.exposition()).body).toContain('node_resolution_cache_entries 2\n');
  });

  /**
   * Heap with the cache full, beside its bound: the estimate must neither let the heap run far past the bound
   * nor waste most of it. `RESOLUTION_CACHE_MEASURE=64mb` measures at the default (figures in the README).
   */
  it('takes about its bound of heap when full', { timeout: 600_000 }, async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const bound = parseByteSize(process.env.RESOLUTION_CACHE_MEASURE ?? '8mb');
    const dids = await PublishedDids.open({ cacheMaxBytes: bound });
    const heap = () => {
      gc();
      gc();
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.external;
    };
    // Stored DIDs beyond what fits, then resolved: the cache fills to its bound and starts evicting.
    let resolved = 0;
    while (dids.service.cacheUsage.entries === resolved) {
      await dids.add(500);
      await dids.resolveAll(resolved);
      resolved = dids.canonicalIds.length;
    }
    const full = heap();
    const { bytes, entries } = dids.service.cacheUsage;
    for (const did of dids.canonicalIds) dids.service.invalidate(did.slice(did.lastIndexOf(':') + 1));
    expect(dids.service.cacheUsage.entries).toBe(0);
    const empty = heap();
    const held = full - empty;
    console.log(
      `resolution cache: bound ${bound} B, estimate ${bytes} B for ${entries} of ${dids.canonicalIds.length} DIDs; heap held ${held} B (${(held / entries).toFixed(0)} B a DID, ${((held / bound) * 100).toFixed(0)}% of the bound)`,
    );
    expect(held).toBeLessThanOrEqual(bound * 1.15);
    expect(held).toBeGreaterThanOrEqual(bound * 0.8);
  });
});
