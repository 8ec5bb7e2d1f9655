import { randomUUID } from 'node:crypto';
import { conflict } from '../errors/index.js';
import {
  bundledContext,
  contextLookupKey,
  createDocumentLoader,
  type ContextDocument,
  type ContextSource,
  type DocumentLoader,
} from '../jsonld/index.js';
import { queryAll, type Store, type StoreProvider } from '../storage/index.js';
import type { OperatorContext } from './operator-context.js';

/** The store the operator's contexts are kept in, keyed by their lookup key (`contextLookupKey`). */
export const CONTEXTS_STORE = 'jsonld-contexts';

interface ContextRecord {
  url: string;
  document: ContextDocument;
  /** Changes with every write, so a replica's refresh sees a replaced document. */
  revision: string;
  addedAt: string;
}

/** The operator's contexts at one version: what worker threads are handed (`ContextBroadcast`). */
export interface ContextSnapshot {
  readonly version: number;
  readonly contexts: readonly OperatorContext[];
}

/**
 * The JSON-LD contexts an operator added to a service (`--contexts-file`, `POST /ld/context`), kept in the
 * service's store and in memory, and served by `documentLoader` after the bundled ones: every JSON-LD user
 * of the service (proof checks, canonicalisation) reads them through it, and nothing is ever fetched from
 * the network. A bundled context cannot be replaced (409). Operator documents are not tagged static for
 * jsonld.js: its process-wide cache would keep serving a removed or replaced document, and would serve one
 * service's contexts to another in the same process.
 */
export class JsonLdContexts implements ContextSource {
  /** Bundled contexts, then these; anything else is a 400 naming the URL. */
  readonly documentLoader: DocumentLoader;
  private byKey = new Map<string, ContextRecord>();
  private currentVersion = 0;
  private readonly listeners: Array<(snapshot: ContextSnapshot) => void> = [];

  private constructor(
    private readonly store: Store<ContextRecord>,
    /** Other instances may change the contexts (MongoDB): `refresh` now and then. */
    readonly sharedStore: boolean,
  ) {
    this.documentLoader = createDocumentLoader({ sources: [this] });
  }

  static async open(storage: StoreProvider): Promise<JsonLdContexts> {
    const store = await storage.open<ContextRecord>(CONTEXTS_STORE);
    const contexts = new JsonLdContexts(store, storage.kind === 'mongodb');
    await contexts.refresh();
    return contexts;
  }

  /** `ContextSource`: the operator's document for `url`, if any. */
  async load(url: string): Promise<ContextDocument | undefined> {
    return this.byKey.get(contextLookupKey(url))?.document;
  }

  /** Bumped by every change this instance makes or sees. */
  get version(): number {
    return this.currentVersion;
  }

  list(): OperatorContext[] {
    return [...this.byKey.values()]
      .map(({ url, document }) => ({ url, document }))
      .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  }

  snapshot(): ContextSnapshot {
    return { version: this.currentVersion, contexts: this.list() };
  }

  /** Told (synchronously) after every change, with the new snapshot. */
  onChange(listener: (snapshot: ContextSnapshot) => void): void {
    this.listeners.push(listener);
  }

  /** Adds or replaces the given contexts, all or none; a bundled URL is a 409 and nothing is written. */
  async add(contexts: readonly OperatorContext[]): Promise<void> {
    for (const { url } of contexts) {
      const bundled = bundledContext(url);
      if (bundled)
        throw conflict(`context ${url} is bundled (as ${bundled.url}) and cannot be replaced`, {
          details: { context: url },
        });
    }
    const addedAt = new Date().toISOString();
    const records = contexts.map(({ url, document }) => ({ url, document, revision: randomUUID(), addedAt }));
    await this.store.batch(records.map((value) => ({ op: 'put', key: contextLookupKey(value.url), value })));
    for (const record of records) this.byKey.set(contextLookupKey(record.url), record);
    this.changed();
  }

  /** Removes the context added under `url` (or an equivalent form of it); false when there is none. */
  async remove(url: string): Promise<boolean> {
    if (bundledContext(url))
      throw conflict(`context ${url} is bundled and cannot be removed`, { details: { context: url } });
    const key = contextLookupKey(url);
    const removed = await this.store.delete(key);
    const known = this.byKey.delete(key);
    if (removed || known) this.changed();
    return removed || known;
  }

  /** Reads the store again: what other instances sharing the database changed shows here. */
  async refresh(): Promise<void> {
    const entries = await queryAll(this.store, {});
    const fresh = new Map(entries.map(({ key, value }) => [key, value]));
    const same =
      fresh.size === this.byKey.size &&
      [...fresh].every(([key, record]) => this.byKey.get(key)?.revision === record.revision);
    if (same) return;
    this.byKey = fresh;
    this.changed();
  }

  private changed(): void {
    this.currentVersion += 1;
    const snapshot = this.snapshot();
    for (const listener of this.listeners) listener(snapshot);
  }
}
