import { KeyPair } from '@anchor/common/crypto';
import {
  addPublicKeys,
  createRequest,
  documentKey,
  DID_NODE_PROTOCOL,
  parseOperation,
  serializeRequest,
  type ParsedOperation,
} from '@anchor/sidetree';
import { describe, expect, it } from 'vitest';
import { ParsedOperationCache } from './parsed-operation-cache.js';

function parsedCreate(): ParsedOperation {
  const built = createRequest({
    recoveryKey: KeyPair.generate('Ed25519'),
    updateKey: KeyPair.generate('Ed25519'),
    anchorOrigin: 'https://node.test',
    patches: [addPublicKeys(documentKey('key-1', KeyPair.generate('Ed25519'), { purposes: ['authentication'] }))],
  });
  return parseOperation(serializeRequest(built.request), { protocol: DID_NODE_PROTOCOL });
}

describe('parsed-operation cache', () => {
  it('hands an accepted operation out once', () => {
    const cache = new ParsedOperationCache();
    const operation = parsedCreate();
    cache.keepAccepted('a:create', operation);
    expect(cache.takeAccepted('a:create')).toBe(operation);
    expect(cache.takeAccepted('a:create')).toBeUndefined();
  });

  it('forgets accepted operations by key, or all of them', () => {
    const cache = new ParsedOperationCache();
    for (const key of ['a', 'b', 'c']) cache.keepAccepted(key, parsedCreate());
    cache.forgetAccepted(['a', 'b']);
    expect(cache.sizes.accepted).toBe(1);
    cache.clearAccepted();
    expect(cache.sizes.accepted).toBe(0);
  });

  it('moves a built batch to the published stage under its core index hashlink', () => {
    const cache = new ParsedOperationCache();
    const operations = [parsedCreate(), parsedCreate()];
    cache.keepBuilt('batch-1', operations);
    cache.publishBuilt('batch-1', 'hl:core-1');
    expect(cache.sizes).toEqual({ accepted: 0, built: 0, published: 1 });
    expect(cache.publishedBatch('hl:core-1')).toBe(operations);
    // A batch built before a restart is not in the cache: nothing is published for it.
    cache.publishBuilt('batch-2', 'hl:core-2');
    expect(cache.publishedBatch('hl:core-2')).toBeUndefined();
    cache.forgetPublished('hl:core-1');
    expect(cache.sizes.published).toBe(0);
  });

  it('keeps the 64 newest published batches', () => {
    const cache = new ParsedOperationCache();
    const operations = [parsedCreate()];
    for (let index = 0; index < 70; index++) {
      cache.keepBuilt(`batch-${index}`, operations);
      cache.publishBuilt(`batch-${index}`, `hl:core-${index}`);
    }
    expect(cache.sizes.published).toBe(64);
    expect(cache.publishedBatch('hl:core-5')).toBeUndefined();
    expect(cache.publishedBatch('hl:core-6')).toBe(operations);
    expect(cache.publishedBatch('hl:core-69')).toBe(operations);
  });
});
