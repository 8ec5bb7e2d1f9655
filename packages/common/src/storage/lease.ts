import { AppError } from '../errors/index.js';
import type { ProviderBatchOp, Store, StoreProvider } from './types.js';

/** The store every lease chain lives in unless a caller names another (docs/adr/0013-fenced-lease.md). */
export const LEASE_STORE = 'leases';

export interface StoreLeaseOptions {
  /** The store that keeps the lease chains (default `leases`); it must not be opened with an expiry field. */
  store?: string;
  /** The lease's name (the role it grants: `batch-writer`, `sequencer`). */
  name: string;
  /** Who takes it: the same holder id after a restart takes its lease straight back (in a new epoch). */
  holder: string;
  durationMs: number;
}

type LinkKind = 'claim' | 'renew' | 'write' | 'release';

/** One link of a lease's chain: written once by insert-if-absent, never replaced. */
export interface LeaseLink {
  lease: string;
  /** Position in the chain (1, 2, ...): the key's suffix. */
  version: number;
  /** The holder's epoch: the version of the claim that began it. */
  epoch: number;
  holder: string;
  kind: LinkKind;
  /** Until when the holder holds the lease (ms since the epoch; 0 after a release). Judged by readers' clocks. */
  expiresAt: number;
}

/** A write refused because the lease moved on to a newer epoch (HTTP 409; never retried as it stands). */
export class FencedError extends AppError {
  constructor(
    readonly lease: string,
    readonly epoch: number,
    message = `lease ${lease}: epoch ${epoch} is over, the write was refused`,
  ) {
    super('conflict', message, { details: { lease, epoch }, retryable: false });
  }
}

export function isFenced(error: unknown): error is FencedError {
  return error instanceof FencedError;
}

interface Held {
  epoch: number;
  /** Version of this epoch's claim: kept in the store, since a deposed holder's next insert meets it. */
  claim: number;
  /** Version of this holder's latest link. */
  version: number;
  expiresAt: number;
}

const versionKey = (name: string, version: number): string => `${name}#${String(version).padStart(16, '0')}`;

/**
 * A lease with a fencing token, safe on every adapter including FerretDB v1 (which makes no conditional
 * replace atomic; only insert-if-absent on a key without an expiry field is, see the ADR). The lease is a chain
 * of immutable links `<name>#<version>`, each written by insert-if-absent: a claim starts an epoch (its
 * version), renewals, fenced writes and the release extend it. Whoever inserts version v+1 first wins it, so
 * the chain is a total order of every holder's steps, and an epoch's links are contiguous.
 *
 * Fencing: `write(ops)` puts the next link in the same provider batch as the holder's records, first. A
 * deposed holder's next link meets the claim of its successor (the link right after its own last one, never
 * deleted), so the store refuses the write (`FencedError`), whatever the holder's clocks and timers believe.
 * The holder's own older renew/write links are deleted as it goes: a chain keeps one claim per epoch plus
 * its latest link.
 *
 * One holder's steps are serialised (each needs the version its previous one took).
 */
export class StoreLease {
  private held: Held | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly provider: StoreProvider,
    private readonly links: Store<LeaseLink>,
    private readonly storeName: string,
    private readonly options: StoreLeaseOptions,
  ) {}

  static async open(provider: StoreProvider, options: StoreLeaseOptions): Promise<StoreLease> {
    const store = options.store ?? LEASE_STORE;
    // Exclusive: on an LMDB environment several processes share, each claim is decided under LMDB's write lock.
    const links = await provider.open<LeaseLink>(store, { indexes: [['lease', 'version']], exclusive: true });
    return new StoreLease(provider, links, store, options);
  }

  get name(): string {
    return this.options.name;
  }

  get holder(): string {
    return this.options.holder;
  }

  get durationMs(): number {
    return this.options.durationMs;
  }

  /** The epoch this instance holds the lease in (its fencing token), or undefined. */
  get epoch(): number | undefined {
    return this.held?.epoch;
  }

  /** Takes the lease if it is free, expired or was this holder's (a restart), renewing it if held; false when another holds it. */
  acquire(now = Date.now()): Promise<boolean> {
    return this.serial(async () => (this.held ? this.extend(now) : this.claim(now)));
  }

  /** Extends the lease if we hold it, or takes it if it is free; false when it is someone else's now. */
  renew(now = Date.now()): Promise<boolean> {
    return this.acquire(now);
  }

  /** Frees the lease at once if we still hold it (a release link with expiry 0). */
  release(): Promise<void> {
    return this.serial(async () => {
      const held = this.held;
      if (!held) return;
      this.held = undefined;
      await this.append(held, 'release', 0, []);
    });
  }

  /**
   * Applies `ops` (one provider batch) only while this instance holds the lease: the batch's first operation
   * inserts the next link of the chain, which a successor's claim has taken if we were deposed. Throws
   * `FencedError` then (and the lease counts as lost), or when the lease is not held. Other failures (a
   * conflict of `ops` themselves, the store unreachable) are rethrown as they are.
   */
  write(ops: readonly ProviderBatchOp[]): Promise<void> {
    return this.serial(async () => {
      const held = this.held;
      if (!held)
        throw new FencedError(this.options.name, 0, `lease ${this.options.name}: not held, the write was refused`);
      // A write renews: the store just took a link of this epoch, so the holder was alive and in office.
      if (!(await this.append(held, 'write', Date.now() + this.options.durationMs, ops))) {
        this.held = undefined;
        throw new FencedError(this.options.name, held.epoch);
      }
    });
  }

  /** The newest link of the chain. */
  async tip(): Promise<LeaseLink | undefined> {
    const page = await this.links.query({
      where: { lease: this.options.name },
      orderBy: { field: 'version', direction: 'desc' },
      limit: 1,
    });
    return page.items[0]?.value;
  }

  /** The link that began `epoch` (kept while the chain lives): when it was claimed is its expiry less the duration. */
  async claimOf(epoch: number): Promise<LeaseLink | undefined> {
    const link = await this.links.get(versionKey(this.options.name, epoch));
    return link?.kind === 'claim' && link.epoch === epoch ? link : undefined;
  }

  private async claim(now: number): Promise<boolean> {
    const tip = await this.tip();
    if (tip && tip.holder !== this.options.holder && tip.expiresAt > now) return false;
    const version = (tip?.version ?? 0) + 1;
    const link = this.link(version, version, 'claim', now + this.options.durationMs);
    if (!(await this.links.insert(versionKey(this.options.name, version), link))) return false;
    // The tip read above may predate the holder's later links, and the slot after it may since have been freed
    // (a holder deletes its previous link as it appends): a claim there sits below the real tip, and its
    // appends could walk through the holder's freed slots. Only a claim that is still the tip holds.
    const after = await this.tip();
    if (after !== undefined && after.version > version) return false;
    this.held = { epoch: version, claim: version, version, expiresAt: link.expiresAt };
    return true;
  }

  private async extend(now: number): Promise<boolean> {
    const held = this.held!;
    if (await this.append(held, 'renew', now + this.options.durationMs, [])) return true;
    this.held = undefined;
    // Deposed: the lease may be free again already (the successor released it).
    return this.claim(now);
  }

  /**
   * Inserts the link after `held.version` (with `ops` after it in one batch); false when another epoch's link
   * is there. A link of our own epoch there is one whose write we saw fail but which landed: step past it.
   */
  private async append(
    held: Held,
    kind: LinkKind,
    expiresAt: number,
    ops: readonly ProviderBatchOp[],
  ): Promise<boolean> {
    for (;;) {
      const version = held.version + 1;
      const key = versionKey(this.options.name, version);
      const previous =
        held.version === held.claim
          ? []
          : [{ store: this.storeName, op: 'delete' as const, key: versionKey(this.options.name, held.version) }];
      try {
        await this.provider.batch([
          { store: this.storeName, op: 'insert', key, value: this.link(version, held.epoch, kind, expiresAt) },
          ...ops,
          ...previous,
        ]);
        held.version = version;
        held.expiresAt = expiresAt;
        return true;
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'conflict') throw error;
        const there = await this.links.get(key);
        // The conflict was one of `ops`' own inserts: the chain did not move.
        if (!there) throw error;
        if (there.epoch !== held.epoch) return false;
        held.version = version;
        if (kind === 'write') throw error;
      }
    }
  }

  private link(version: number, epoch: number, kind: LinkKind, expiresAt: number): LeaseLink {
    return { lease: this.options.name, version, epoch, holder: this.options.holder, kind, expiresAt };
  }

  private serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step, step);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
