import { conflict, errorMessage } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import { deadLetterTopic, type Delivery, type MessageQueue, type Subscription } from '@anchor/common/mq';
import type { Page } from '@anchor/common/storage';
import { seedDeadLetterSeries, type DeadLetterMetrics } from './dead-letter-metrics.js';
import type { DeadLetterSource } from './dead-letter-source.js';
import type { DeadLetter, DeadLetterStore } from './dead-letter-store.js';

/**
 * The node's dead letters: every message of its sources' topics that the queue dead-letters (`<topic>.dead`)
 * is kept durably with why and when it failed, until an operator replays it (its source makes its work
 * pending again, then it is published again on its topic) or discards it (its source settles the work for
 * good). With several instances the dead-letter topics' consumers compete, so each is kept once.
 */
export class DeadLetters {
  private readonly sources = new Map<string, DeadLetterSource>();
  private readonly subscriptions: Subscription[] = [];

  constructor(
    private readonly store: DeadLetterStore,
    private readonly mq: MessageQueue,
    private readonly metrics: DeadLetterMetrics,
    private readonly log: Logger,
    sources: readonly DeadLetterSource[],
  ) {
    for (const source of sources) this.sources.set(source.topic, source);
  }

  get topics(): string[] {
    return [...this.sources.keys()];
  }

  async start(): Promise<void> {
    seedDeadLetterSeries(this.metrics, this.topics);
    await this.store.recount(...this.topics);
    for (const source of this.sources.values()) {
      this.subscriptions.push(
        await this.mq.subscribe(deadLetterTopic(source.topic), (delivery) => this.keep(source, delivery)),
      );
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscriptions.splice(0).map((subscription) => subscription.close()));
  }

  get(id: string): Promise<DeadLetter | undefined> {
    return this.store.get(id);
  }

  list(query: { topic?: string | undefined; limit: number; after?: string | undefined }): Promise<Page<DeadLetter>> {
    return this.store.list(query);
  }

  /** Publishes the message again on its topic (with its id and user headers) and forgets the dead letter. */
  async replay(record: DeadLetter): Promise<DeadLetter> {
    await this.sourceOf(record).reviving(record.body);
    await this.mq.publish(record.topic, record.body, { messageId: record.id, headers: record.headers });
    await this.store.remove(record);
    this.metrics.replayed.inc({ topic: record.topic });
    this.log.info('dead letter replayed', { id: record.id, topic: record.topic });
    return record;
  }

  async discard(record: DeadLetter): Promise<DeadLetter> {
    await this.sourceOf(record).discarding(record.body);
    await this.store.remove(record);
    this.metrics.discarded.inc({ topic: record.topic });
    this.log.info('dead letter discarded', { id: record.id, topic: record.topic });
    return record;
  }

  private async keep(source: DeadLetterSource, delivery: Delivery): Promise<void> {
    const subject = await source.describe(delivery.body).catch((error: unknown) => {
      this.log.warn('could not describe a dead letter', { topic: source.topic, err: errorMessage(error) });
      return undefined;
    });
    const record = await this.store.keep(source.topic, delivery, subject);
    this.log.warn('message dead-lettered: kept for replay', {
      id: record.id,
      topic: record.topic,
      reason: record.reason,
      attempts: record.attempts,
      err: record.error,
    });
  }

  private sourceOf(record: DeadLetter): DeadLetterSource {
    const source = this.sources.get(record.topic);
    // Kept by a node version that had more sources: replaying or discarding it here is not possible.
    if (source === undefined) throw conflict(`dead letters of topic ${record.topic} are not handled by this node`);
    return source;
  }
}
