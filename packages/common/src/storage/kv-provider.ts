/**
 * A StoreProvider over an ordered key-value backend (mem or LMDB): opens stores (rebuilding their derived
 * entries when the declared indexes or expiry field changed since the data was written), runs cross-store
 * batches in one backend write, and sweeps expired records periodically.
 */
import { KeyedMutex } from '../concurrency/index.js';
import { badRequest } from '../errors/index.js';
import { storeUnavailable } from './unavailable.js';
import { planAndWrite, prepareBatch, KvStore, runBatch, type KvStoreHost } from './kv-store.js';
import { KvWriter } from './kv-writer.js';
import type { KvBackend } from './ordered-kv.js';
import { buildSchema, indexId } from './schema.js';
import type { ProviderBatchOp, Store, StoreKind, StoreOptions, StoreProvider } from './types.js';

export interface KvProviderOptions {
  /** Prefix of the backend space names (`<prefix>_<store>`), like the Go services' DATABASE_PREFIX. */
  prefix?: string;
  /** How often expired records are swept from stores with an expiry field; 0 disables. Default 60 s. */
  sweepIntervalMs?: number;
  /** Where failures of the periodic sweep go (default: console.error). */
  onSweepError?: (error: unknown, store: string) => void;
}

const STORE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/;

export function checkStoreName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !STORE_NAME.test(name)) {
    throw badRequest(
      `invalid store name ${JSON.stringify(name)}: use 1-120 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
}

export function prefixedName(prefix: string | undefined, name: string): string {
  return prefix ? `${prefix}_${name}` : name;
}

export class KvStoreProvider implements StoreProvider, KvStoreHost {
  private readonly stores = new Map<string, KvStore<object>>();
  private readonly opening = new KeyedMutex();
  private readonly exclusive = new Set<string>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private closed = false;
  readonly writer: KvWriter;

  constructor(
    readonly kind: StoreKind,
    readonly backend: KvBackend,
    private readonly options: KvProviderOptions = {},
  ) {
    this.writer = new KvWriter(backend);
    const interval = options.sweepIntervalMs ?? 60_000;
    if (!Number.isFinite(interval) || interval < 0) throw badRequest('sweepIntervalMs must be a non-negative number');
    if (interval > 0) {
      this.sweepTimer = setInterval(() => void this.sweepAll(), interval);
      this.sweepTimer.unref();
    }
  }

  assertOpen(): void {
    if (this.closed) throw storeUnavailable(`${this.kind} storage provider is closed`);
  }

  isExclusive(store: string): boolean {
    return this.exclusive.has(store);
  }

  async open<T extends object>(name: string, options: StoreOptions = {}): Promise<Store<T>> {
    this.assertOpen();
    checkStoreName(name);
    if (options.exclusive === true) this.exclusive.add(name);
    // Opens of one name are serialised: a second open waits for the first one's index rebuild.
    return (await this.opening.run(name, () => this.openNow(name, options))) as unknown as Store<T>;
  }

  private async openNow(name: string, options: StoreOptions): Promise<KvStore<object>> {
    this.assertOpen();
    const existing = this.stores.get(name);
    const schema = buildSchema(name, options, existing?.schema);
    if (
      existing &&
      indexId([...existing.schema.indexes.keys()].sort()) === indexId([...schema.indexes.keys()].sort()) &&
      existing.schema.expiryField === schema.expiryField
    ) {
      return existing;
    }
    const store =
      existing ?? new KvStore<object>(name, this.backend.space(prefixedName(this.options.prefix, name)), this, schema);
    if (!store.builtFor(schema)) {
      await this.writer.transaction(() => {
        if (!store.builtFor(schema)) store.rebuildInWrite(schema);
        else store.schema = schema;
      });
    } else {
      store.schema = schema;
    }
    this.stores.set(name, store);
    return store;
  }

  async exists(name: string): Promise<boolean> {
    this.assertOpen();
    checkStoreName(name);
    return this.stores.has(name) || this.backend.hasSpace(prefixedName(this.options.prefix, name));
  }

  async batch(ops: readonly ProviderBatchOp[]): Promise<void> {
    this.assertOpen();
    const planned = prepareBatch('provider batch', ops, (o) => {
      const store = typeof o.store === 'string' ? this.stores.get(o.store) : undefined;
      if (!store) throw badRequest(`provider batch: store ${JSON.stringify(o.store)} is not open on this provider`);
      return store;
    });
    if (planned.length === 0) return;
    const exclusive = planned.some((o) => this.exclusive.has(o.store.name));
    await planAndWrite(this.writer, (p) => runBatch(p, planned), undefined, exclusive);
  }

  restartReason(): string | undefined {
    return this.writer.restartReason();
  }

  async ping(): Promise<void> {
    this.assertOpen();
    this.writer.assertUsable();
    this.backend.ping();
  }

  /** Sweeps every open store with an expiry field; returns how many records were removed. */
  async sweepAll(now = Date.now()): Promise<number> {
    if (this.closed) return 0;
    if (this.sweeping) await this.sweeping;
    let removed = 0;
    const run = (async () => {
      for (const store of this.stores.values()) {
        if (this.closed) return;
        try {
          removed += await store.sweepExpired(now);
        } catch (error) {
          if (this.closed) return;
          (this.options.onSweepError ?? ((e, s) => console.error(`storage: sweeping store ${s} failed:`, e)))(
            error,
            store.name,
          );
        }
      }
    })();
    this.sweeping = run;
    try {
      await run;
    } finally {
      if (this.sweeping === run) this.sweeping = undefined;
    }
    return removed;
  }

  /** Runs `check` on every open store against the latest committed state (see integrity.ts). */
  async checkIntegrity(
    check: (store: KvStore<object>, problems: string[]) => { records: number; entries: number },
  ): Promise<{ stores: Record<string, { records: number; entries: number }>; problems: string[] }> {
    this.assertOpen();
    const problems: string[] = [];
    const stores: Record<string, { records: number; entries: number }> = {};
    for (const store of this.stores.values()) stores[store.name] = check(store, problems);
    return { stores, problems };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.opening.settled();
    if (this.sweeping) await this.sweeping.catch(() => undefined);
    await this.backend.close();
  }
}
