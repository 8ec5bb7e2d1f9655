import { AppError } from '@anchor/common/errors';
import { createMemStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { beforeEach, describe, expect, it } from 'vitest';
import { ACTIVITY_STORES, ActivityStore, type ActivityRef } from './activity-store.js';
import { CollectionPages, pagingOf, type CollectionSource } from './collections.js';

const ME = 'https://me.example/services/node';
const ID = `${ME}/followers`;
const FOLLOWERS: CollectionSource = { refType: 'follower', objectIri: ME, ordered: false, items: 'iris' };
const peer = (i: number) => `https://peer${String(i).padStart(2, '0')}.example/services/node`;

/** Follows `next` links from the first page; returns every item and the pages' ids. */
async function walk(pages: CollectionPages): Promise<{ items: string[]; ids: string[] }> {
  const items: string[] = [];
  const ids: string[] = [];
  let url: string | undefined = `${ID}?page=true`;
  while (url !== undefined) {
    const page = await pages.document(ID, FOLLOWERS, pagingOf(new URL(url).searchParams));
    ids.push(page.id as string);
    items.push(...(page.items as string[]));
    url = page.next as string | undefined;
  }
  return { items, ids };
}

describe('collection pages by cursor, sizes kept on write', () => {
  let provider: StoreProvider;
  let store: ActivityStore;
  let pages: CollectionPages;

  beforeEach(async () => {
    provider = createMemStoreProvider({ sweepIntervalMs: 0 });
    store = await ActivityStore.open(provider);
    pages = new CollectionPages(store, 10);
    for (let i = 0; i < 25; i++) await store.addRef('follower', ME, peer(i));
  });

  it('walks every item once, in order, by next cursors; numbered pages still answer the same items', async () => {
    const { items, ids } = await walk(pages);
    expect(items).toEqual(Array.from({ length: 25 }, (_, i) => peer(i)));
    expect(ids).toHaveLength(3);
    expect(ids[1]).toMatch(/\?page=true&after=[A-Za-z0-9_-]+$/);
    const numbered: string[] = [];
    for (let n = 0; n < 3; n++)
      numbered.push(
        ...((
          await pages.document(ID, FOLLOWERS, pagingOf(new URLSearchParams({ page: 'true', 'page-num': String(n) })))
        ).items as string[]),
      );
    expect(numbered).toEqual(items);
    const second = await pages.document(
      ID,
      FOLLOWERS,
      pagingOf(new URLSearchParams({ page: 'true', 'page-num': '1' })),
    );
    expect(second.prev).toBe(`${ID}?page=true`);
    expect(second.next).toMatch(/after=/);
  });

  it('keeps totalItems exact on write: re-adds, deletes of absent references and batches', async () => {
    const total = async () => (await pages.document(ID, FOLLOWERS, { page: undefined })).totalItems;
    expect(await total()).toBe(25);
    expect(await store.addRef('follower', ME, peer(3))).toBe(false);
    expect(await store.deleteRef('follower', ME, 'https://nobody.example')).toBe(false);
    expect(await total()).toBe(25);
    await store.write([
      store.deleteRefOp('follower', ME, peer(0)),
      store.deleteRefOp('follower', ME, peer(0)),
      store.addRefOp('follower', ME, peer(1)),
      store.addRefOp('follower', ME, peer(99)),
    ]);
    expect(await total()).toBe(25);
    await store.apply([{ op: 'delete', refType: 'follower', objectIri: ME, refIri: peer(5) }]);
    expect(await total()).toBe(24);
    expect(await store.count('follower', ME)).toBe(24);
    expect((await walk(pages)).items).toHaveLength(24);
    // Across every object too (all likes, all shares).
    await store.addRef('follower', 'https://other.example', peer(1));
    expect(await store.size('follower', undefined)).toBe(25);
  });

  it('commits writes issued at once together, each still standing or failing alone, with exact counts', async () => {
    const batches: number[] = [];
    const batch = provider.batch.bind(provider);
    provider.batch = async (ops) => {
      batches.push(ops.length);
      return batch(ops);
    };
    // 30 new followers, two of them twice, and one already there: issued together, as a busy inbox does.
    const added = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => store.addRef('follower', ME, peer(30 + i))),
      store.addRef('follower', ME, peer(3)),
      store.addRef('follower', ME, peer(31)),
      store.addRef('follower', ME, peer(32)),
    ]);
    expect(added.slice(0, 30).every(Boolean)).toBe(true);
    expect(added.slice(30)).toEqual([false, false, false]);
    expect(await store.size('follower', ME)).toBe(55);
    expect(await store.count('follower', ME)).toBe(55);
    expect((await walk(pages)).items).toHaveLength(55);
    // Fewer commits than writes: the first went alone, the rest in groups (a refused one is retried alone).
    expect(batches.length).toBeLessThan(20);

    // A write the store refuses fails alone; the others issued with it are committed.
    const refused = store.write([{ ...store.addRefOp('follower', ME, peer(3)), op: 'insert' }]);
    const others = Array.from({ length: 5 }, (_, i) => store.addRef('follower', ME, peer(70 + i)));
    await expect(refused).rejects.toMatchObject({ code: 'conflict' });
    expect(await Promise.all(others)).toEqual([true, true, true, true, true]);
    expect(await store.size('follower', ME)).toBe(60);
    expect(await store.count('follower', ME)).toBe(60);
  });

  it('counts once the references of a store kept before counts were', async () => {
    const counts = await provider.open(ACTIVITY_STORES.counts);
    for (const { key } of (await counts.query({ limit: 100 })).items) await counts.delete(key);
    const reopened = await ActivityStore.open(provider);
    expect(await reopened.size('follower', ME)).toBe(25);
    expect(await reopened.size('follower', undefined)).toBe(25);
  });

  it('answers a cursor that is no cursor of the collection with a 400, changing nothing', async () => {
    const refs = await provider.open<ActivityRef>(ACTIVITY_STORES.refs);
    const before = (await refs.query({ limit: 100 })).items;
    for (const after of ['AAAA', Buffer.from('["k"]').toString('base64url'), Buffer.from('{}').toString('base64url')]) {
      const error = await pages
        .document(ID, FOLLOWERS, pagingOf(new URLSearchParams({ page: 'true', after })))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('bad_request');
      expect((error as AppError).message).toMatch(/not a cursor of this collection/);
    }
    expect((await refs.query({ limit: 100 })).items).toEqual(before);
  });
});
