import { HEADERS, IDENTITY_HEADER, type Delivery } from '@anchor/common/mq';
import type { Page, Store, StoreProvider } from '@anchor/common/storage';
import type { DeadLetterMetrics } from './dead-letter-metrics.js';

export const DEAD_LETTER_STORE = 'dead-letter';

/** A message that exhausted its retries (or was refused for good), kept for the operator. */
export interface DeadLetter {
  /** The queue message id. */
  id: string;
  /** The topic it failed on. */
  topic: string;
  /** The message body as published: a replay publishes it again. */
  body: unknown;
  /** Its user headers (trace context and the like), published again with it. */
  headers: Record<string, string>;
  /** `max-attempts`, `non-retryable` or `invalid-message`. */
  reason: string;
  /** The last handler error. */
  error: string;
  /** Deliveries that failed. */
  attempts: number;
  /** Epoch ms of the original publish, the first failed delivery and the last one. */
  publishedAt: number;
  firstFailedAt: number;
  lastFailedAt: number;
  /** What it was about (the source's description when it was kept), e.g. the activity and the inbox. */
  subject?: Record<string, unknown>;
}

/**
 * The dead letters kept (store `dead-letter`, keyed by message id), at most `maxRecords`: beyond that the
 * oldest (by last failure) are dropped and counted, so a peer down for a week cannot fill the disk.
 */
export class DeadLetterStore {
  private constructor(
    private readonly store: Store<DeadLetter>,
    private readonly maxRecords: number,
    private readonly metrics: DeadLetterMetrics,
  ) {}

  static async open(provider: StoreProvider, maxRecords: number, metrics: DeadLetterMetrics): Promise<DeadLetterStore> {
    const store = await provider.open<DeadLetter>(DEAD_LETTER_STORE, {
      indexes: ['lastFailedAt', ['topic', 'lastFailedAt']],
    });
    return new DeadLetterStore(store, maxRecords, metrics);
  }

  /** Keeps a dead letter delivered on `<topic>.dead`; a message dead-lettered again replaces its record. */
  async keep(topic: string, delivery: Delivery, subject: Record<string, unknown> | undefined): Promise<DeadLetter> {
    const record = deadLetterOf(topic, delivery, subject);
    await this.store.put(record.id, record);
    this.metrics.deadLettered.inc({ topic, reason: record.reason });
    await this.evictBeyondLimit();
    await this.recount(topic);
    return record;
  }

  get(id: string): Promise<DeadLetter | undefined> {
    return this.store.get(id);
  }

  /** Newest first, optionally of one topic. */
  list(query: { topic?: string | undefined; limit: number; after?: string | undefined }): Promise<Page<DeadLetter>> {
    return this.store.query({
      ...(query.topic !== undefined ? { where: { topic: query.topic } } : {}),
      orderBy: { field: 'lastFailedAt', direction: 'desc' },
      limit: query.limit,
      ...(query.after !== undefined ? { after: query.after } : {}),
    });
  }

  async remove(record: DeadLetter): Promise<boolean> {
    const removed = await this.store.delete(record.id);
    await this.recount(record.topic);
    return removed;
  }

  /** Sets the gauge of each topic from the store (at start, and after every change). */
  async recount(...topics: readonly string[]): Promise<void> {
    for (const topic of topics) this.metrics.kept.set({ topic }, await this.store.count({ topic }));
  }

  private async evictBeyondLimit(): Promise<void> {
    const excess = (await this.store.count()) - this.maxRecords;
    if (excess <= 0) return;
    const oldest = await this.store.query({ orderBy: { field: 'lastFailedAt', direction: 'asc' }, limit: excess });
    for (const { key, value } of oldest.items) {
      if (await this.store.delete(key)) {
        this.metrics.evicted.inc({ topic: value.topic });
        await this.recount(value.topic);
      }
    }
  }
}

/** The record of a dead letter from its delivery on the dead-letter topic and the headers the queue set. */
export function deadLetterOf(
  topic: string,
  delivery: Delivery,
  subject: Record<string, unknown> | undefined,
): DeadLetter {
  const { headers } = delivery;
  const lastFailedAt = epochMs(headers[HEADERS.deadLetteredAt]) ?? Date.now();
  const record: DeadLetter = {
    id: delivery.id,
    topic,
    body: delivery.body,
    headers: Object.fromEntries(
      Object.entries(headers).filter(([name]) => !name.startsWith('x-') && name !== IDENTITY_HEADER),
    ),
    reason: headers[HEADERS.deadLetterReason] ?? 'unknown',
    error: headers[HEADERS.deadLetterError] ?? '',
    attempts: Number(headers[HEADERS.failedAttempts] ?? 0) || 0,
    publishedAt: delivery.publishedAt,
    firstFailedAt: epochMs(headers[HEADERS.firstFailedAt]) ?? lastFailedAt,
    lastFailedAt,
  };
  if (subject !== undefined) record.subject = subject;
  return record;
}

function epochMs(text: string | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
