import type { Store, StoreProvider } from '@anchor/common/storage';

interface ConfigRecord {
  value: unknown;
  updatedAt: number;
}

/**
 * Runtime configuration the node keeps in its database rather than in flags, so every instance of a
 * deployment sees the same values and they survive restarts: allowed origins, the witness log URL, the
 * witness policy, accept lists, generated keys. One small store, one record per setting.
 */
export class ConfigValues {
  private constructor(private readonly store: Store<ConfigRecord>) {}

  static async open(storage: StoreProvider): Promise<ConfigValues> {
    return new ConfigValues(await storage.open<ConfigRecord>('config'));
  }

  async get<T>(name: string): Promise<T | undefined> {
    return (await this.store.get(name))?.value as T | undefined;
  }

  async set(name: string, value: unknown): Promise<void> {
    await this.store.put(name, { value, updatedAt: Date.now() });
  }

  async delete(name: string): Promise<boolean> {
    return this.store.delete(name);
  }

  /** Stores `value` unless the setting exists; returns whichever value is stored (first writer wins across instances). */
  async getOrInit<T>(name: string, create: () => T): Promise<T> {
    const existing = await this.store.get(name);
    if (existing) return existing.value as T;
    await this.store.insert(name, { value: create(), updatedAt: Date.now() });
    return (await this.store.get(name))?.value as T;
  }
}
