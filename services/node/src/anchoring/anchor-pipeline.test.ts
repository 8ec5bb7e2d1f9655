import { KeyPair, localSigner } from '@anchor/common/crypto';
import { createDidResolver, didKeyFromKeyPair } from '@anchor/common/did';
import { parseHashlink } from '@anchor/common/encoding';
import { createHttpClient } from '@anchor/common/http-client';
import { getLogger, setLogLevels } from '@anchor/common/log';
import { createMetrics } from '@anchor/common/metrics';
import { createMemStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { createWebFingerClient } from '@anchor/common/webfinger';
import { waitFor } from '@anchor/testing/process';
import {
  addPublicKeys,
  createRequest,
  documentKey,
  DID_NODE_PROTOCOL,
  parseOperation,
  ProtocolRegistry,
  serializeRequest,
  type ParsedOperation,
} from '@anchor/sidetree';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CasStore } from '../cas/cas-store.js';
import { ContentResolver } from '../cas/content-resolver.js';
import { createNodeMetrics } from '../observability/node-metrics.js';
import type { AnchorEvent } from '../anchor-model/anchor-event.js';
import { AnchorObserver } from '../observer/anchor-observer.js';
import { AnchorRecords } from '../anchor-model/anchor-records.js';
import { CredentialVerifier } from '../observer/credential-verifier.js';
import { encodeRequest, operationKey, type QueuedOperation } from '../operations/operation-records.js';
import { OperationStores } from '../operations/operation-stores.js';
import { ConfigValues } from '../runtime-config/config-values.js';
import { CredentialStore, VC_STORE } from '../anchor-credentials/anchor-credentials-feature.js';
import { LogSetting } from '../vct-client/log-setting.js';
import { VctClient } from '../vct-client/vct-client.js';
import { dataUriEncodingFor } from '../anchor-model/anchor-linkset.js';
import { AnchorBatches, type AnchorBatch } from './anchor-batches.js';
import { AnchorPipeline, resubmitWaitMs, type CompletedAnchor } from './anchor-pipeline.js';
import type { AnchorCredential } from '../anchor-model/anchor-credential.js';
import { createBatchFileBuilder } from '../anchor-model/batch-file-builder.js';
import { LocalWitness } from './local-witness.js';
import { ParsedOperationCache } from '../anchor-model/parsed-operation-cache.js';
import { selfWitnessing, type AnchorWitnessing } from './witnessing.js';

const ORIGIN = 'http://node.test';
const SERVICE_ID = `${ORIGIN}/services/node`;
const RETRY = { initialMs: 20, multiplier: 2, maxMs: 200 };

/**
 * The anchor pipeline on its own, over a mem store: cut records are driven through every status by the real
 * builder, local witness and observer; the observer is handed each submitted event by the test, so every
 * intermediate state can be looked at.
 */
describe('anchor pipeline', () => {
  let provider: StoreProvider;
  let stores: OperationStores;
  let batches: AnchorBatches;
  let records: AnchorRecords;
  let cache: ParsedOperationCache;
  let observer: AnchorObserver;
  let pipeline: AnchorPipeline | undefined;
  let submitted: AnchorEvent[];
  let released: Array<{ batchId: string; keys: readonly string[]; failed: boolean }>;
  let completed: CompletedAnchor[];
  const metrics = createNodeMetrics(createMetrics({ prefix: 'node_', processMetrics: false }));
  const nodeKey = KeyPair.generate('Ed25519');
  const nodeDid = didKeyFromKeyPair(nodeKey);

  beforeAll(() => setLogLevels('error'));

  beforeEach(async () => {
    provider = createMemStoreProvider();
    stores = await OperationStores.open(provider);
    batches = await AnchorBatches.open(provider);
    records = await AnchorRecords.open(provider);
    cache = new ParsedOperationCache();
    const cas = await CasStore.open(provider, `${ORIGIN}/cas`);
    const verifier = new CredentialVerifier(createDidResolver(), 60_000);
    observer = new AnchorObserver(
      stores,
      records,
      new ContentResolver(cas, createHttpClient(), metrics),
      verifier,
      cache,
      metrics,
      getLogger('observer'),
      {
        namespace: 'did:node',
        protocols: ProtocolRegistry.of(['1.0']),
        discoveryDomain: undefined,
      },
    );
    submitted = [];
    released = [];
    completed = [];
  });

  afterEach(async () => {
    await pipeline?.stop();
    await pipeline?.close();
    pipeline = undefined;
    await provider.close();
  });

  /** Claim lookups the pipeline made (the anchoring feature asks the observer's `anchor-sequence`). */
  let claimChecks: string[] = [];

  async function startPipeline(witnessing: AnchorWitnessing = selfWitnessing): Promise<AnchorPipeline> {
    claimChecks = [];
    const cas = await CasStore.open(provider, `${ORIGIN}/cas`);
    const configValues = await ConfigValues.open(provider);
    const started = new AnchorPipeline({
      batches,
      operations: stores,
      cas,
      credentials: new CredentialStore(await provider.open(VC_STORE), `${ORIGIN}/vc`),
      localWitness: new LocalWitness({
        signer: localSigner(nodeKey),
        verificationMethod: `${nodeDid}#${nodeDid.slice('did:key:'.length)}`,
        domain: ORIGIN,
        useLog: false,
        ownOrigins: [],
        logSetting: new LogSetting(configValues),
        vct: new VctClient({ metrics, httpClient: createHttpClient(), webFinger: createWebFingerClient() }),
      }),
      witnessing,
      submit: async (event) => {
        submitted.push(event);
      },
      anchorRecord: (anchorHash) => records.anchors.get(anchorHash),
      anchorClaimed: async (anchorHash) => {
        claimChecks.push(anchorHash);
        return (await records.sequence.query({ where: { anchorHash }, limit: 1 })).items.length > 0;
      },
      serviceId: SERVICE_ID,
      vcBase: `${ORIGIN}/vc`,
      namespace: 'did:node',
      protocols: ProtocolRegistry.of(['1.0']),
      encoding: dataUriEncodingFor('application/gzip;base64'),
      retry: RETRY,
      metrics,
      log: getLogger('anchor-writer'),
      parsedOperations: cache,
      batchFiles: createBatchFileBuilder(),
    });
    started.onReleased((batchId, keys, failed) => released.push({ batchId, keys, failed }));
    started.onCompleted(async (anchor) => {
      completed.push(anchor);
    });
    // As the anchoring feature wires it: the observer's commit moves the batch on at once.
    observer.onProcessed((processed) => {
      if (processed.batchId !== undefined) started.advance(processed.batchId);
    });
    pipeline = started;
    return started;
  }

  /** An accepted create, stored in the queue as the intake stores it. */
  async function queueCreate(): Promise<{ key: string; operation: ParsedOperation }> {
    const built = createRequest({
      recoveryKey: KeyPair.generate('Ed25519'),
      updateKey: KeyPair.generate('Ed25519'),
      anchorOrigin: ORIGIN,
      patches: [addPublicKeys(documentKey('key-1', KeyPair.generate('Ed25519'), { purposes: ['authentication'] }))],
    });
    const operation = parseOperation(serializeRequest(built.request), { protocol: DID_NODE_PROTOCOL });
    const key = operationKey(operation);
    const queued: QueuedOperation = {
      suffix: operation.didSuffix,
      type: operation.type,
      request: encodeRequest(operation.canonicalRequest),
      acceptedAt: Date.now(),
      receivedTime: 0,
      anchorOrigin: ORIGIN,
    };
    await stores.queued.insert(key, queued);
    return { key, operation };
  }

  async function cut(keys: string[]): Promise<string> {
    const batchId = `batch-${Math.random().toString(36).slice(2)}`;
    const now = Date.now();
    const batch: AnchorBatch = {
      status: 'cut',
      createdAt: now,
      updatedAt: now,
      firstAcceptedAt: now,
      operationKeys: keys,
      attempts: 0,
    };
    await batches.insert(batchId, batch);
    return batchId;
  }

  const statusOf = async (batchId: string) => (await batches.get(batchId))?.status;

  it('drives a cut batch to published, hands the built operations to the observer, and completes once it committed', async () => {
    const cached = await queueCreate();
    const parsedLater = await queueCreate();
    cache.keepAccepted(cached.key, cached.operation);
    const run = await startPipeline();
    const batchId = await cut([cached.key, parsedLater.key]);
    run.advance(batchId);

    await waitFor(async () => (await statusOf(batchId)) === 'published', { timeoutMs: 5_000 });
    const published = (await batches.get(batchId))!;
    expect(published).toMatchObject({ status: 'published', attempts: 0, operationCount: 2, batchOrigins: [ORIGIN] });
    expect(submitted).toEqual([{ hashlink: published.anchorEvent, batchId }]);
    // The cached operation was taken at the build; the batch's operations wait for the observer under the core index hashlink.
    expect(cache.sizes).toEqual({ accepted: 0, built: 0, published: 1 });
    expect(
      cache
        .publishedBatch(published.coreIndexHashlink!)
        ?.map((operation) => operation.didSuffix)
        .sort(),
    ).toEqual([cached.operation.didSuffix, parsedLater.operation.didSuffix].sort());
    expect(released).toEqual([]);

    expect(await observer.process(submitted[0]!)).toBe('processed');
    expect(cache.sizes.published).toBe(0);
    await waitFor(async () => (await statusOf(batchId)) === 'completed', { timeoutMs: 5_000 });
    expect(released).toEqual([{ batchId, keys: [cached.key, parsedLater.key], failed: false }]);
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({
      anchorId: batchId,
      hashlink: published.anchorEvent,
      anchorHash: parseHashlink(published.anchorEvent!).resourceHash,
      operationCount: 2,
    });
    expect(await stores.queued.count()).toBe(0);
    expect(
      (await stores.published.query({ keyPrefix: `${cached.operation.didSuffix}:` })).items.map(
        (item) => item.value.canonicalReference,
      ),
    ).toEqual([parseHashlink(published.anchorEvent!).resourceHash]);
    expect(run.active).toBe(0);
  });

  it('completes a batch whose operations all left the queue meanwhile, with nothing to anchor', async () => {
    const gone = await queueCreate();
    await stores.queued.delete(gone.key);
    const run = await startPipeline();
    const batchId = await cut([gone.key]);
    run.advance(batchId);

    await waitFor(async () => (await statusOf(batchId)) === 'completed', { timeoutMs: 5_000 });
    expect(await batches.get(batchId)).toMatchObject({ status: 'completed', operationCount: 0 });
    expect(released).toEqual([{ batchId, keys: [gone.key], failed: false }]);
    expect(submitted).toEqual([]);
    expect(completed).toEqual([]);
  });

  it('retries a failing step after the backoff delays, recording attempts and the error, until it succeeds', async () => {
    const calls: number[] = [];
    const flaky: AnchorWitnessing = {
      async witness(request) {
        calls.push(Date.now());
        if (calls.length <= 2) throw new Error(`witnesses unreachable (${calls.length})`);
        return { status: 'witnessed', credential: request.credential };
      },
    };
    const { key } = await queueCreate();
    const run = await startPipeline(flaky);
    const batchId = await cut([key]);
    run.advance(batchId);

    const failing = await waitFor(
      async () => {
        const batch = await batches.get(batchId);
        return batch?.attempts === 2 ? batch : undefined;
      },
      { timeoutMs: 5_000 },
    );
    expect(failing).toMatchObject({ status: 'signed', attempts: 2, lastError: 'witnesses unreachable (2)' });

    await waitFor(async () => (await statusOf(batchId)) === 'published', { timeoutMs: 5_000 });
    const published = (await batches.get(batchId))!;
    expect(published.attempts).toBe(0);
    expect(published.lastError).toBeUndefined();
    expect(calls).toHaveLength(3);
    // initialMs x multiplier^(attempt-1): 20 ms, then 40 ms (timers never fire early by more than a millisecond).
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(RETRY.initialMs - 1);
    expect(calls[2]! - calls[1]!).toBeGreaterThanOrEqual(RETRY.initialMs * RETRY.multiplier - 1);
  });

  it('asks the witnessing again after each pending answer, then publishes its credential', async () => {
    const attempts: number[] = [];
    const slow: AnchorWitnessing = {
      async witness(request) {
        attempts.push(request.attempt);
        return request.attempt < 3
          ? { status: 'pending', recheckAfterMs: 10 }
          : { status: 'witnessed', credential: request.credential };
      },
    };
    const { key } = await queueCreate();
    const run = await startPipeline(slow);
    const batchId = await cut([key]);
    run.advance(batchId);

    await waitFor(async () => (await statusOf(batchId)) === 'published', { timeoutMs: 5_000 });
    expect(attempts).toEqual([1, 2, 3]);
    expect(await batches.get(batchId)).toMatchObject({ status: 'published', witnessChecks: 3, attempts: 0 });
  });

  it('fails the batch for good when the observer refused its anchor, and releases it with its operations parked', async () => {
    // A second proof that does not verify: the observer rejects the anchor.
    const forged: AnchorWitnessing = {
      async witness(request) {
        const proof = {
          ...(request.credential.proof as Record<string, unknown>),
          domain: 'https://forged.example.com',
        };
        return {
          status: 'witnessed',
          credential: { ...request.credential, proof: [request.credential.proof, proof] } as AnchorCredential,
        };
      },
    };
    const { key } = await queueCreate();
    const run = await startPipeline(forged);
    const batchId = await cut([key]);
    run.advance(batchId);

    await waitFor(async () => (await statusOf(batchId)) === 'published', { timeoutMs: 5_000 });
    const event = submitted[0]!;
    await expect(observer.process(event)).rejects.toMatchObject({
      retryable: false,
      message: /proof verification failed: proof 1/,
    });
    await observer.reject(event, 'proof 1 does not verify');
    run.advance(batchId);

    await waitFor(async () => (await statusOf(batchId)) === 'failed', { timeoutMs: 5_000 });
    expect((await batches.get(batchId))?.lastError).toBe('observer refused the anchor: proof 1 does not verify');
    expect(released).toEqual([{ batchId, keys: [key], failed: true }]);
    expect(await stores.queued.count()).toBe(1);
    expect(completed).toEqual([]);
  });

  it('hands a published anchor to the observer again after the wait, unless an observer has claimed it', async () => {
    const run = await startPipeline();
    const publishedLongAgo = async () => {
      const { key } = await queueCreate();
      const batchId = await cut([key]);
      run.advance(batchId);
      await waitFor(async () => (await statusOf(batchId)) === 'published', { timeoutMs: 5_000 });
      // As if handed over longer ago than the first wait.
      const batch = (await batches.get(batchId))!;
      await batches.save(batchId, { ...batch, publishedAt: Date.now() - resubmitWaitMs(0) - 1_000 }, batch);
      return { batchId, anchorHash: parseHashlink(batch.anchorEvent!).resourceHash };
    };

    // Not claimed (the message lost, or still queued): handed over again.
    const lost = await publishedLongAgo();
    run.advance(lost.batchId);
    await waitFor(async () => (await batches.get(lost.batchId))?.resubmits === 1, { timeoutMs: 5_000 });
    expect(submitted.filter((event) => event.batchId === lost.batchId)).toHaveLength(2);

    // Claimed: an observer is committing it, and the broker holds its message until it is done.
    const committing = await publishedLongAgo();
    await records.sequence.insert(AnchorRecords.sequenceKey(99), {
      anchorHash: committing.anchorHash,
      transactionNumber: 99,
    });
    run.advance(committing.batchId);
    await waitFor(() => claimChecks.includes(committing.anchorHash), { timeoutMs: 5_000 });
    // Its step ends (stop waits for it): not handed over.
    await run.stop();
    const batch = (await batches.get(committing.batchId))!;
    expect(batch.status).toBe('published');
    expect(batch.resubmits).toBeUndefined();
    expect(submitted.filter((event) => event.batchId === committing.batchId)).toHaveLength(1);
  });
});
