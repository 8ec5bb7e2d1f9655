import type { Metrics } from '../metrics/index.js';
import type { Store, StoreProvider } from '../storage/index.js';

/** Orb's `db` metric families; `insert` and `replaceIf` count as a put, `getMany` as a bulk get, `count` as a query. */
const OPERATIONS = ['put', 'get', 'get_bulk', 'query', 'delete', 'batch'] as const;
type Operation = (typeof OPERATIONS)[number];

/**
 * The provider with every store call timed into `<prefix>db_<operation>_seconds{type}` (type: the adapter),
 * as Orb's `db` metrics. The timers are bound to their labels once, so a call costs two clock reads
 * and one bucket increment.
 */
export function meteredStorage(provider: StoreProvider, metrics: Metrics): StoreProvider {
  const timers = Object.fromEntries(
    OPERATIONS.map((operation) => {
      const histogram = metrics.histogram({
        name: `db_${operation}_seconds`,
        help: `Seconds per ${operation.replace('_', ' ')} call on the database`,
        labelNames: ['type'],
      });
      return [operation, histogram.labels({ type: provider.kind })];
    }),
  ) as unknown as Record<Operation, { observe(seconds: number): void }>;

  function timed<T>(operation: Operation, work: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    const observe = (): void => timers[operation].observe(Number(process.hrtime.bigint() - started) / 1e9);
    const pending = work();
    pending.then(observe, observe);
    return pending;
  }

  function meteredStore<T extends object>(store: Store<T>): Store<T> {
    return {
      name: store.name,
      get: (key) => timed('get', () => store.get(key)),
      getMany: (keys) => timed('get_bulk', () => store.getMany(keys)),
      put: (key, value) => timed('put', () => store.put(key, value)),
      insert: (key, value) => timed('put', () => store.insert(key, value)),
      replaceIf: (key, where, value) => timed('put', () => store.replaceIf(key, where, value)),
      delete: (key) => timed('delete', () => store.delete(key)),
      batch: (ops) => timed('batch', () => store.batch(ops)),
      query: (query) => timed('query', () => store.query(query)),
      count: (where) => timed('query', () => store.count(where)),
      sweepExpired: (now) => store.sweepExpired(now),
    };
  }

  return {
    kind: provider.kind,
    open: async (name, options) => meteredStore(await provider.open(name, options)),
    exists: (name) => provider.exists(name),
    batch: (ops) => timed('batch', () => provider.batch(ops)),
    ping: () => provider.ping(),
    ...(provider.restartReason ? { restartReason: () => provider.restartReason?.() } : {}),
    close: () => provider.close(),
  };
}
