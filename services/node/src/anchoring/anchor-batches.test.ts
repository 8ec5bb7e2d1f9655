import { createMemStoreProvider, type ProviderBatchOp, type StoreProvider } from '@anchor/common/storage';
import { cuttableProvider } from '@anchor/testing/storage-faults';
import { describe, expect, it } from 'vitest';
import { AnchorBatches, BATCH_BODY_STORE, BATCH_STORE, type AnchorBatch } from './anchor-batches.js';

/** The provider, with every cross-store batch it is given recorded. */
function recordingProvider(): { provider: StoreProvider; batches: ProviderBatchOp[][] } {
  const inner = createMemStoreProvider();
  const batches: ProviderBatchOp[][] = [];
  const provider: StoreProvider = {
    kind: inner.kind,
    open: (name, options) => inner.open(name, options),
    exists: (name) => inner.exists(name),
    batch: (ops) => {
      batches.push([...ops]);
      return inner.batch(ops);
    },
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return { provider, batches };
}

const KEYS = Array.from({ length: 50 }, (_, index) => `EiSuffix${index}:claim${index}`);

function cutBatch(createdAt = 1_000): AnchorBatch {
  return {
    status: 'cut',
    createdAt,
    updatedAt: createdAt,
    firstAcceptedAt: createdAt - 10,
    operationKeys: KEYS,
    attempts: 0,
  };
}

const written = (ops: ProviderBatchOp[]) => ops.map((op) => `${op.op} ${op.store}`);

describe('anchor batches: a status record plus a body written only when it changes', () => {
  it('writes the operation keys with the cut and reads them back joined', async () => {
    const { provider, batches } = recordingProvider();
    const store = await AnchorBatches.open(provider);
    await store.insert('b1', cutBatch());
    expect(written(batches[0]!)).toEqual([`insert ${BATCH_STORE}`, `put ${BATCH_BODY_STORE}`]);
    expect(await store.get('b1')).toEqual(cutBatch());
    // The status record itself holds no body.
    const record = await (await provider.open<Record<string, unknown>>(BATCH_STORE)).get('b1');
    expect(record).not.toHaveProperty('operationKeys');
    expect(await store.get('missing')).toBeUndefined();
  });

  it('refuses a second cut under the same id, leaving the first whole', async () => {
    const { provider } = recordingProvider();
    const store = await AnchorBatches.open(provider);
    await store.insert('b1', cutBatch());
    await expect(store.insert('b1', { ...cutBatch(2_000), operationKeys: ['other:key'] })).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(await store.get('b1')).toEqual(cutBatch());
  });

  it('rewrites the body only when a status change brings new body parts, and drops it on completion', async () => {
    const { provider, batches } = recordingProvider();
    const store = await AnchorBatches.open(provider);
    const cut = cutBatch();
    await store.insert('b1', cut);

    const items = KEYS.map((key) => ({ suffix: key.split(':')[0]! }));
    const content = { linkset: [] } as unknown as NonNullable<AnchorBatch['content']>;
    const built: AnchorBatch = {
      ...cut,
      status: 'built',
      operationCount: KEYS.length,
      items,
      content,
      coreIndexHashlink: 'hl:core',
    };
    await store.save('b1', built, cut);
    expect(written(batches.at(-1)!)).toEqual([`put ${BATCH_BODY_STORE}`, `put ${BATCH_STORE}`]);

    const signed: AnchorBatch = { ...built, status: 'signed' };
    await store.save('b1', signed, built);
    expect(written(batches.at(-1)!)).toEqual([`put ${BATCH_STORE}`]);
    expect(await store.get('b1')).toEqual(signed);

    const failedAttempt: AnchorBatch = { ...signed, attempts: 1, lastError: 'log unreachable' };
    await store.save('b1', failedAttempt, signed);
    expect(written(batches.at(-1)!)).toEqual([`put ${BATCH_STORE}`]);

    const completed: AnchorBatch = {
      ...failedAttempt,
      status: 'completed',
      attempts: 0,
      expiresAt: Date.now() + 60_000,
    };
    await store.save('b1', completed, failedAttempt);
    expect(written(batches.at(-1)!)).toEqual([`put ${BATCH_STORE}`, `delete ${BATCH_BODY_STORE}`]);
    const after = await store.get('b1');
    expect(after).toMatchObject({ status: 'completed', operationCount: KEYS.length, operationKeys: [] });
    expect(after).not.toHaveProperty('items');
    expect(await (await provider.open(BATCH_BODY_STORE)).get('b1')).toBeUndefined();
  });

  it('lists batches by status, oldest first, each with its body', async () => {
    const { provider } = recordingProvider();
    const store = await AnchorBatches.open(provider);
    await store.insert('late', { ...cutBatch(3_000), operationKeys: ['c:1'] });
    await store.insert('early', { ...cutBatch(1_000), operationKeys: ['a:1'] });
    const middle = { ...cutBatch(2_000), operationKeys: ['b:1'] };
    await store.insert('middle', middle);
    await store.save('middle', { ...middle, status: 'built' }, middle);
    const listed = await store.in(['cut', 'built']);
    expect(listed.map(({ key, value }) => [key, value.status, value.operationKeys])).toEqual([
      ['early', 'cut', ['a:1']],
      ['middle', 'built', ['b:1']],
      ['late', 'cut', ['c:1']],
    ]);
    expect(await store.in(['witnessing'])).toEqual([]);
  });

  it('reads a record written before the split (body inline) and moves its body out on the next save', async () => {
    const { provider } = recordingProvider();
    const store = await AnchorBatches.open(provider);
    const legacy = { ...cutBatch(), status: 'built' as const, items: [{ suffix: 'EiSuffix0' }] };
    await (await provider.open<AnchorBatch>(BATCH_STORE)).put('old', legacy);
    const read = await store.get('old');
    expect(read).toEqual(legacy);
    expect((await store.in(['built']))[0]?.value).toEqual(legacy);

    await store.save('old', { ...read!, status: 'signed' }, read!);
    const record = await (await provider.open<Record<string, unknown>>(BATCH_STORE)).get('old');
    expect(record).not.toHaveProperty('operationKeys');
    expect(await store.get('old')).toEqual({ ...legacy, status: 'signed' });
  });

  it('never stores a status without the body parts it needs when a save is cut short (no transactions)', async () => {
    const items = KEYS.map((key) => ({ suffix: key.split(':')[0]! }));
    const content = { linkset: [] } as unknown as NonNullable<AnchorBatch['content']>;
    const cut = cutBatch();
    const built: AnchorBatch = { ...cut, status: 'built', operationCount: KEYS.length, items, content };
    const processed: AnchorBatch = { ...built, status: 'processed', processedAt: 2_000 };
    const completed: AnchorBatch = { ...processed, status: 'completed', expiresAt: Date.now() + 60_000 };
    const legacy: AnchorBatch = { ...built, status: 'signed' };
    // Every save whose batch writes two stores: the build brings the body parts, the completion drops them, a
    // record from before the split moves its body out.
    const saves: Array<{ from: AnchorBatch; to: AnchorBatch; inline?: boolean }> = [
      { from: cut, to: built },
      { from: processed, to: completed },
      { from: legacy, to: { ...legacy, status: 'witnessed' }, inline: true },
    ];
    for (const { from, to, inline } of saves) {
      for (const at of [0, 1]) {
        const provider = cuttableProvider(createMemStoreProvider());
        const store = await AnchorBatches.open(provider);
        if (inline) await (await provider.open<AnchorBatch>(BATCH_STORE)).put('b1', from);
        else {
          await store.insert('b1', cut);
          if (from !== cut) await store.save('b1', from, cut);
        }
        const previous = (await store.get('b1'))!;
        provider.cut = at;
        await expect(store.save('b1', to, previous)).rejects.toThrow(/half-way/);
        const read = (await store.get('b1'))!;
        const what = `${from.status} -> ${to.status}, cut after ${at} writes: read ${read.status}`;
        expect([from.status, to.status], what).toContain(read.status);
        expect(read.operationKeys, what).toEqual(KEYS);
        if (read.status !== 'cut') expect([read.items, read.content], what).toEqual([items, content]);
      }
    }
  });
});
