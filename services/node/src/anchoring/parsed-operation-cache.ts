import type { ParsedOperation } from '@anchor/sidetree';

/** Published batches kept for the observer; beyond this the oldest go first. */
const PUBLISHED_BATCHES = 64;

/**
 * The operations this instance parsed at intake, kept until the observer has committed them, so that the
 * anchor pipeline does not parse them again and the observer does not read this node's own batch files
 * back from the CAS. Three stages, each with one writer:
 *
 * - accepted: by operation key, kept by the batch writer while it holds the operation (queued, then cut),
 *   taken by the pipeline when it builds the batch;
 * - built: by batch id, the operations of a built batch in batch order, until the pipeline publishes it;
 * - published: by core index hashlink, until the observer commits the anchor (bounded).
 *
 * Only a cache: an operation it lacks is parsed from its stored request, a batch it lacks is read from its
 * files (the files are byte for byte what these operations serialise to).
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
