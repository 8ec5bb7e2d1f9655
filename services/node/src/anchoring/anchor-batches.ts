import { queryAll, type ProviderBatchOp, type Store, type StoreProvider } from '@anchor/common/storage';
import type { AnchorCredential } from '../anchor-model/anchor-credential.js';
import type { ContentObject, SuffixAnchor } from '../anchor-model/anchor-linkset.js';
import type { AnchorStatus } from '../anchor-model/anchor-status.js';

export const BATCH_STORE = 'anchor-batch';

/** How the batch records are written: one provider batch, all or nothing where the store allows. */
export type BatchWrite = (ops: readonly ProviderBatchOp[]) => Promise<void>;

/** Statuses in which a batch holds its DIDs back from the next batches. */
export const IN_FLIGHT: readonly AnchorStatus[] = ['cut', 'built', 'signed', 'witnessing', 'witnessed', 'published'];
/** Statuses the pipeline resumes at start. */
export const UNFINISHED: readonly AnchorStatus[] = [...IN_FLIGHT, 'processed'];

export interface AnchorBatch {
  status: AnchorStatus;
  /** When the batch was cut (epoch ms). */
  createdAt: number;
  updatedAt: number;
  /** acceptedAt of its oldest operation. */
  firstAcceptedAt: number;
  /** The batch's operations (empty once it is completed: see `AnchorBatches`). */
  operationKeys: string[];
  /** Failed attempts at the current step (reset on progress). */
  attempts: number;
  /** The protocol version its operations were accepted under and its anchor is written in (absent: v1.0). */
  protocolVersion?: number;
  lastError?: string;
  operationCount?: number;
  coreIndexHashlink?: string;
  items?: SuffixAnchor[];
  content?: ContentObject;
  /** Unsigned (built), then with the node's proof (signed), then with every proof (witnessed). */
  credential?: AnchorCredential;
  batchOrigins?: string[];
  witnessStartedAt?: number;
  witnessChecks?: number;
  /** `hl:<hash>:<links>` of the witnessed anchor linkset (published). */
  anchorEvent?: string;
  /** When it was first handed to the observer. */
  publishedAt?: number;
  /** Times it was handed to the observer again (not processed in time), and when last. */
  resubmits?: number;
  resubmittedAt?: number;
  processedAt?: number;
  /** Completed records disappear after a day. */
  expiresAt?: number;
}

/**
 * The parts of a batch that grow with its operation count (the operation keys; the items and content object
 * listing every DID). They are written when they are made, at the cut and at the build, not with each of a
 * batch's eight status changes: kept in the status record, every change would rewrite and re-read them, a
 * large share of a busy node's writes (the node README's Performance section has the figures).
 */
type AnchorBatchBody = Pick<AnchorBatch, 'operationKeys' | 'items' | 'content'>;
/** What the status store holds: everything else (records written before the split also hold the body). */
type AnchorBatchRecord = Omit<AnchorBatch, keyof AnchorBatchBody> & Partial<AnchorBatchBody>;

export const BATCH_BODY_STORE = 'anchor-batch-body';
/** Marks a batch read from a record that still held its body inline: its next save writes the body store. */
const INLINE_BODY = Symbol('inline body');

/**
 * The in-flight anchors, each a small status record (indexed by status, expiring once completed) plus its
 * body (see `AnchorBatchBody`), read and written together as one `AnchorBatch`. A completed batch's body is
 * deleted with the status change that completes it: its operation keys read empty from then on
 * (`operationCount` keeps the size).
 */
export class AnchorBatches {
  private constructor(
    private readonly writeOps: BatchWrite,
    private readonly records: Store<AnchorBatchRecord>,
    private readonly bodies: Store<AnchorBatchBody>,
  ) {}

  /**
   * `write` applies each write's operations; the batch writer passes its lease's fenced write, so a writer that
   * lost the lease has its cuts and status changes refused by the store (`FencedError`).
   */
  static async open(provider: StoreProvider, write?: BatchWrite): Promise<AnchorBatches> {
    const records = await provider.open<AnchorBatchRecord>(BATCH_STORE, {
      indexes: [['status', 'createdAt']],
      expiryField: 'expiresAt',
    });
    return new AnchorBatches(
      write ?? ((ops) => provider.batch(ops)),
      records,
      await provider.open<AnchorBatchBody>(BATCH_BODY_STORE),
    );
  }

  /**
   * Writes a new batch (the cut); a `conflict` AppError if the id is taken. The status record goes first: its
   * insert refuses a taken id before the body is touched, and a cut stopped after it (no transactions) leaves
   * a batch without operations, which the writer does not count as cut and the pipeline completes as empty.
   */
  async insert(batchId: string, batch: AnchorBatch): Promise<void> {
    const [record, body] = split(batch);
    await this.writeOps([
      { store: BATCH_STORE, op: 'insert', key: batchId, value: record },
      { store: BATCH_BODY_STORE, op: 'put', key: batchId, value: body },
    ]);
  }

  async get(batchId: string): Promise<AnchorBatch | undefined> {
    const record = await this.records.get(batchId);
    return record && joined(record, await this.bodies.get(batchId));
  }

  /**
   * Writes `next`, which `previous` (the batch as last read or saved) became; the body only when one of its
   * parts is a new value, and its deletion when the batch completes.
   *
   * A store without transactions (FerretDB, a standalone MongoDB) can stop a batch after any of its writes
   * (a lost connection): the new body goes before the status that needs it, and is deleted only after the
   * status that no longer does, so what such a write leaves is the old status (whose step runs again) and never
   * a status without its body (a built batch without its content could never be published).
   */
  async save(batchId: string, next: AnchorBatch, previous: AnchorBatch): Promise<void> {
    const [record, body] = split(next);
    const ops: ProviderBatchOp[] = [];
    if (next.status !== 'completed' && bodyChanged(next, previous))
      ops.push({ store: BATCH_BODY_STORE, op: 'put', key: batchId, value: body });
    ops.push({ store: BATCH_STORE, op: 'put', key: batchId, value: record });
    if (next.status === 'completed') ops.push({ store: BATCH_BODY_STORE, op: 'delete', key: batchId });
    await this.writeOps(ops);
  }

  /** The status records of the newest `limit` batches in `status`, newest first (without their bodies). */
  async newest(
    status: AnchorStatus,
    limit: number,
  ): Promise<Array<Pick<AnchorBatch, 'createdAt' | 'publishedAt' | 'processedAt' | 'operationCount'>>> {
    const page = await this.records.query({
      where: { status },
      orderBy: { field: 'createdAt', direction: 'desc' },
      limit,
    });
    return page.items.map(({ value }) => value);
  }

  /** Every batch in one of `statuses`, oldest first. */
  async in(statuses: readonly AnchorStatus[]): Promise<Array<{ key: string; value: AnchorBatch }>> {
    const found: Array<{ key: string; value: AnchorBatchRecord }> = [];
    for (const status of statuses)
      found.push(...(await queryAll(this.records, { where: { status }, orderBy: { field: 'createdAt' } })));
    found.sort((a, b) => a.value.createdAt - b.value.createdAt);
    const bodies = await this.bodies.getMany(found.map(({ key }) => key));
    return found.map(({ key, value }, index) => ({ key, value: joined(value, bodies[index]) }));
  }
}

function split(batch: AnchorBatch): [AnchorBatchRecord, AnchorBatchBody] {
  const { operationKeys, items, content, ...record } = batch;
  const body: AnchorBatchBody = { operationKeys };
  if (items !== undefined) body.items = items;
  if (content !== undefined) body.content = content;
  return [record, body];
}

function joined(record: AnchorBatchRecord, body: AnchorBatchBody | undefined): AnchorBatch {
  const { operationKeys, items, content, ...status } = record;
  const inline = body === undefined && operationKeys !== undefined;
  const parts = body ?? {
    operationKeys: operationKeys ?? [],
    ...(items !== undefined ? { items } : {}),
    ...(content !== undefined ? { content } : {}),
  };
  const batch: AnchorBatch = { ...status, ...parts };
  // Not enumerable, so the copies the pipeline spreads from this batch do not carry it on.
  if (inline) Object.defineProperty(batch, INLINE_BODY, { value: true, enumerable: false });
  return batch;
}

function bodyChanged(next: AnchorBatch, previous: AnchorBatch): boolean {
  return (
    (previous as { [INLINE_BODY]?: boolean })[INLINE_BODY] === true ||
    next.operationKeys !== previous.operationKeys ||
    next.items !== previous.items ||
    next.content !== previous.content
  );
}
