import type { ParsedOperation } from '@anchor/sidetree';

/** Published batches kept for the observer; beyond this the oldest go first. */
const PUBLISHED_BATCHES = 64;

/**
 * The operations this instance parsed at intake, kept until the observer has committed them, so that the
 * anchor pipeline does not parse them again and the observer does not read this node's own batch files
 * back from the CAS. Its whole life, in one place:
 *
 * - created: one per process, by `createServer` (server.ts), before the anchoring and observer features
 *   that share it; nothing survives a restart.
 * - accepted (by operation key): the batch writer keeps an operation it queues (`keepAccepted`) and forgets
 *   it when its batch is released or the operation left the store (`forgetAccepted`), all of them when the
 *   instance stops being the batch writer (`clearAccepted`); the pipeline takes it when it builds the batch.
 * - built (by batch id): the pipeline keeps a built batch's operations in batch order (`keepBuilt`), moves
 *   them on when it publishes the batch (`publishBuilt`), and forgets them when the batch ends otherwise.
 * - published (by core index hashlink, the newest `PUBLISHED_BATCHES`): the observer reads them for this
 *   node's own anchor (`publishedBatch`) and forgets them once the anchor is committed.
 *
 * Only a cache: an operation it lacks (after a restart, on another instance) is parsed from its stored
 * request, a batch it lacks is read from its files (byte for byte what these operations serialise to).
 */
export class ParsedOperationCache {
  private readonly accepted = new Map<string, ParsedOperation>();
  private readonly built = new Map<string, ParsedOperation[]>();
  private readonly published = new Map<string, ParsedOperation[]>();

  keepAccepted(key: string, operation: ParsedOperation): void {
    this.accepted.set(key, operation);
  }

  /** The accepted operation under `key`, removed from the cache. */
  takeAccepted(key: string): ParsedOperation | undefined {
    const operation = this.accepted.get(key);
    this.accepted.delete(key);
    return operation;
  }

  hasAccepted(key: string): boolean {
    return this.accepted.has(key);
  }

  forgetAccepted(keys: Iterable<string>): void {
    for (const key of keys) this.accepted.delete(key);
  }

  /** Every accepted operation goes (the instance is no longer the batch writer). */
  clearAccepted(): void {
    this.accepted.clear();
  }

  keepBuilt(batchId: string, operations: ParsedOperation[]): void {
    this.built.set(batchId, operations);
  }

  /** The built batch's operations move on to the observer under the hashlink its anchor names. */
  publishBuilt(batchId: string, coreIndexHashlink: string): void {
    const operations = this.built.get(batchId);
    this.built.delete(batchId);
    if (operations === undefined) return;
    this.published.set(coreIndexHashlink, operations);
    while (this.published.size > PUBLISHED_BATCHES) this.published.delete(this.published.keys().next().value as string);
  }

  forgetBuilt(batchId: string): void {
    this.built.delete(batchId);
  }

  /** The operations of a batch this instance published, in batch order. */
  publishedBatch(coreIndexHashlink: string): ParsedOperation[] | undefined {
    return this.published.get(coreIndexHashlink);
  }

  forgetPublished(coreIndexHashlink: string): void {
    this.published.delete(coreIndexHashlink);
  }

  /** Entries in each stage (tests, and a look at memory use). */
  get sizes(): { accepted: number; built: number; published: number } {
    return { accepted: this.accepted.size, built: this.built.size, published: this.published.size };
  }
}
