import { createStoreProvider, type StoreProvider } from '@anchor/common/storage';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProfileRecord } from '../profiles/profile-model.js';
import { bitAt, LIST_SIZE } from '../status-list-model/index.js';
import { StatusLists } from './status-lists.js';

const PROFILE = { name: 'uni', did: 'did:example:uni', credentialStatusPurposes: ['revocation'] } as ProfileRecord;

/** Two StatusLists on one store stand for two processes sharing a database: each has its own in-process locks. */
describe('status lists shared by two processes', () => {
  let storage: StoreProvider;
  let one: StatusLists;
  let two: StatusLists;
  beforeEach(async () => {
    storage = await createStoreProvider({ type: 'mem' });
    one = await StatusLists.open(storage, () => 'https://vcs.example');
    two = await StatusLists.open(storage, () => 'https://vcs.example');
  });
  afterEach(async () => storage.close());

  const allocate = async (lists: StatusLists, count: number): Promise<string[]> => {
    const taken = await Promise.all(Array.from({ length: count }, () => lists.allocate(PROFILE, 'StatusList2021')));
    return taken.map(({ refs }) => `${refs[0]!.listId}#${refs[0]!.index}`);
  };

  it('never hands the same index to both, however their reservations interleave', async () => {
    const [a, b] = await Promise.all([allocate(one, 300), allocate(two, 300)]);
    const all = [...a, ...b];
    expect(new Set(all).size).toBe(600);
    for (const taken of all) expect(Number(taken.split('#')[1])).toBeLessThan(LIST_SIZE);
  });

  it('keeps both status changes when two processes change one list at once', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `urn:uuid:${i}`);
    for (const id of ids) {
      const { refs } = await one.allocate(PROFILE, 'StatusList2021');
      await one.issued.put(id, { profile: 'uni', issued: '2024-01-01T00:00:00Z', status: refs });
    }
    await Promise.all(ids.map((id, i) => (i % 2 === 0 ? one : two).update('uni', id, 'revocation', true)));
    for (const id of ids) {
      const ref = (await one.issued.get(id))!.status[0]!;
      const list = await two.readList('uni', ref.listId);
      expect(bitAt(list!.bits, ref.index), id).toBe(true);
    }
  });
});
