import { createLmdbStoreProvider, createMemStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterEach, describe, expect, it } from 'vitest';
import type { DidAnchor, PublishedOperation } from './operation-records.js';
import { LEGACY_DID_ANCHOR_STORE, OperationStores, STORE } from './operation-stores.js';

const suffixOf = (n: number) => `EiD${String(n).padStart(6, '0')}`;
const anchorOf = (n: number, version: number): DidAnchor => ({
  anchor: `hl:uEiA${n}:uoQ`,
  transactionNumber: version,
  version,
});
const operationOf = (suffix: string, transactionNumber: number): PublishedOperation => ({
  suffix,
  type: 'create',
  request: '{}',
  canonicalReference: `uEiA${transactionNumber}`,
  equivalentReferences: [],
  transactionTime: 1_700_000_000,
  transactionNumber,
  operationIndex: 0,
  protocolVersion: 1,
});

const open: StoreProvider[] = [];
const dirs: TempDir[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((provider) => provider.close()));
  await Promise.all(dirs.splice(0).map((dir) => dir.remove()));
});

function lmdb(dir: TempDir): StoreProvider {
  const provider = createLmdbStoreProvider({ dataDir: dir.path });
  open.push(provider);
  return provider;
}

describe('OperationStores', () => {
  it("keeps a DID's latest anchor under its bare suffix, beside and apart from its operations", async () => {
    const provider = createMemStoreProvider();
    open.push(provider);
    const stores = await OperationStores.open(provider);
    const suffix = suffixOf(1);
    await provider.batch([
      { store: STORE.published, op: 'put', key: `${suffix}:uEiA7`, value: operationOf(suffix, 7) },
      { store: STORE.published, op: 'put', key: suffix, value: anchorOf(1, 7) },
      // A DID whose suffix extends this one's: neither its anchor nor its operations are this DID's.
      { store: STORE.published, op: 'put', key: `${suffix}0`, value: anchorOf(2, 8) },
      { store: STORE.published, op: 'put', key: `${suffix}0:uEiA8`, value: operationOf(`${suffix}0`, 8) },
    ]);
    expect(await stores.didAnchors.get(suffix)).toEqual(anchorOf(1, 7));
    const operations = await OperationStores.all(stores.published, suffix);
    expect(operations.map(({ key }) => key)).toEqual([`${suffix}:uEiA7`]);
  });

  it('moves the anchors of the old did-anchor store beside their operations at open, a page at a time', async () => {
    const dir = await makeTempDir('operation-stores-');
    dirs.push(dir);
    const before = lmdb(dir);
    const legacy = await before.open<DidAnchor>(LEGACY_DID_ANCHOR_STORE);
    const count = 1_201;
    for (let n = 0; n < count; n += 400)
      await legacy.batch(
        Array.from({ length: Math.min(400, count - n) }, (_, i) => ({
          op: 'put' as const,
          key: suffixOf(n + i),
          value: anchorOf(n + i, 5),
        })),
      );
    const published = await before.open<PublishedOperation | DidAnchor>(STORE.published);
    // The new place already holds a later anchor of DID 0 (written there after an earlier, interrupted
    // move) and an earlier one of DID 1 (a previous-version instance then wrote the old store again).
    await published.put(suffixOf(0), anchorOf(0, 9));
    await published.put(suffixOf(1), anchorOf(1, 3));
    await published.put(`${suffixOf(2)}:uEiA5`, operationOf(suffixOf(2), 5));
    await before.close();
    open.splice(open.indexOf(before), 1);

    const provider = lmdb(dir);
    const stores = await OperationStores.open(provider);
    expect(await (await provider.open(LEGACY_DID_ANCHOR_STORE)).count()).toBe(0);
    expect(await stores.didAnchors.get(suffixOf(0))).toEqual(anchorOf(0, 9));
    expect(await stores.didAnchors.get(suffixOf(1))).toEqual(anchorOf(1, 5));
    const moved = await stores.didAnchors.getMany(Array.from({ length: count }, (_, n) => suffixOf(n)));
    expect(moved.slice(1)).toEqual(Array.from({ length: count - 1 }, (_, i) => anchorOf(i + 1, 5)));
    expect((await OperationStores.all(stores.published, suffixOf(2))).map(({ value }) => value)).toEqual([
      operationOf(suffixOf(2), 5),
    ]);
    // Nothing else was written to the operation store: the moved anchors and the one operation.
    expect(await stores.published.count()).toBe(count + 1);

    // Opening again finds nothing to move and changes nothing.
    await OperationStores.open(provider);
    expect(await stores.published.count()).toBe(count + 1);
  });

  it('creates no did-anchor store on a deployment that never had one, across restarts', async () => {
    const dir = await makeTempDir('operation-stores-');
    dirs.push(dir);
    const first = lmdb(dir);
    await OperationStores.open(first);
    expect(await first.exists(STORE.published)).toBe(true);
    expect(await first.exists(LEGACY_DID_ANCHOR_STORE)).toBe(false);
    await first.close();
    open.splice(open.indexOf(first), 1);

    const again = lmdb(dir);
    await OperationStores.open(again);
    expect(await again.exists(LEGACY_DID_ANCHOR_STORE)).toBe(false);
  });
});
