/**
 * One subscription: a channel with prefetch = pool size consuming the topic's work queue. A handler that
 * resolves acks its message; one that throws has it republished (with a confirm) to the wait queue of its
 * backoff delay, or to the dead-letter queue, and only then acked, so a crash at any point leaves the
 * message in the broker (at least once). After a connection or channel loss the subscription reopens
 * itself; deliveries in flight on the lost channel are redelivered by the broker.
 */
import { randomUUID } from 'node:crypto';
import type { Channel, ConsumeMessage, Options } from 'amqplib';
import type { FailoverConnection } from './amqp-failover.js';
import { errorMessage } from '../errors/index.js';
import { openChannel } from './amqp-channel.js';
import { queueTypeMismatch, workQueue, type QueueType, type Route } from './amqp-topology.js';
import { deadLetterHeaders, HEADERS, visibleHeaders, withFirstFailure } from './message.js';
import { failureOutcome, type QueueDefaults } from './options.js';
import { deadLetterTopic, type Delivery, type Handler, type Subscription } from './types.js';

/** What a subscription needs from its queue. */
export interface SubscriptionHost {
  readonly model: FailoverConnection;
  readonly queueType: QueueType;
  readonly timeoutMs: number;
  isConnected(): boolean;
  /** The queues a message to `topic` delayed by `delayMs` goes through (its target last), at a given time. */
  route(topic: string, delayMs: number): Route;
  republish(route: Route, content: Buffer, props: Options.Publish, label: string): Promise<void>;
  detach(subscription: AmqpSubscription): void;
  onError(error: unknown, context: string): void;
}

/** Wait before reopening a channel that closed while the connection stayed up. */
const REOPEN_DELAY_MS = 1_000;

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : undefined;
}

export class AmqpSubscription implements Subscription {
  private channel: Channel | undefined;
  private consumerTag: string | undefined;
  private opening: Promise<void> | undefined;
  private reopenTimer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly host: SubscriptionHost,
    readonly topic: string,
    private readonly handler: Handler<unknown>,
    private readonly policy: QueueDefaults,
  ) {}

  /** Opens the consumer; rejects if that cannot be done before the queue's timeout. */
  start(): Promise<void> {
    const opening = this.open(Date.now() + this.host.timeoutMs);
    const settled: Promise<void> = opening
      .catch(() => undefined)
      .finally(() => {
        if (this.opening === settled) this.opening = undefined;
      });
    this.opening = settled;
    return opening;
  }

  /** Reopens the consumer after a loss (idempotent; retries until it works or the subscription closes). */
  resume(): void {
    if (this.closed || this.channel || this.opening) return;
    this.opening = this.open(Date.now() + this.host.timeoutMs)
      .catch((error: unknown) => {
        this.host.onError(error, `resubscribing to ${this.topic}`);
        this.scheduleResume();
      })
      .finally(() => {
        this.opening = undefined;
      });
  }

  private scheduleResume(): void {
    if (this.closed || this.reopenTimer) return;
    this.reopenTimer = setTimeout(() => {
      this.reopenTimer = undefined;
      this.resume();
    }, REOPEN_DELAY_MS);
  }

  private lost(ch: Channel): void {
    if (this.channel !== ch) return;
    this.channel = undefined;
    this.consumerTag = undefined;
    // On a connection loss the queue's reconnect handler resumes us; a lone channel loss is ours to fix.
    if (!this.closed && this.host.isConnected()) this.scheduleResume();
  }

  private async open(deadline: number): Promise<void> {
    const ch = await openChannel(
      () => this.host.model.createChannel(),
      deadline,
      `consumer channel of ${this.topic}`,
      (e, context) => this.host.onError(e, context),
    );
    if (this.closed) {
      await ch.close().catch(() => undefined);
      return;
    }
    ch.on('close', () => this.lost(ch));
    try {
      const spec = workQueue(this.topic, this.host.queueType);
      await ch.assertQueue(spec.name, spec.options).catch((error: unknown) => {
        const hint = queueTypeMismatch(error, spec.name, this.host.queueType);
        throw hint === undefined ? error : new Error(hint, { cause: error });
      });
      await ch.prefetch(this.policy.concurrency);
      this.channel = ch;
      const { consumerTag } = await ch.consume(this.topic, (msg) => this.onMessage(ch, msg), { noAck: false });
      if (this.channel === ch) this.consumerTag = consumerTag;
    } catch (error) {
      if (this.channel === ch) this.channel = undefined;
      await ch.close().catch(() => undefined);
      throw error;
    }
  }

  private onMessage(ch: Channel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      // The broker cancelled the consumer (its queue was deleted): start over, redeclaring the queue.
      this.lost(ch);
      void ch.close().catch(() => undefined);
      return;
    }
    const task = this.handle(ch, msg)
      .catch((error: unknown) => this.host.onError(error, `handling a message of ${this.topic}`))
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private async handle(ch: Channel, msg: ConsumeMessage): Promise<void> {
    const raw = (msg.properties.headers ?? {}) as Record<string, unknown>;
    const attempt = positiveInt(raw[HEADERS.attempt]) ?? 1;
    const publishedAt =
      positiveInt(raw[HEADERS.publishedAt]) ??
      (typeof msg.properties.timestamp === 'number' ? msg.properties.timestamp * 1000 : Date.now());
    const id = typeof msg.properties.messageId === 'string' ? msg.properties.messageId : randomUUID();
    const headers = visibleHeaders(raw);
    let body: unknown;
    try {
      body = JSON.parse(msg.content.toString('utf8'));
    } catch (error) {
      await this.forward(ch, msg, deadLetterTopic(this.topic), this.host.route(deadLetterTopic(this.topic), 0), {
        id,
        attempt: 1,
        publishedAt,
        headers: deadLetterHeaders(
          headers,
          this.topic,
          'invalid-message',
          `body is not JSON: ${errorMessage(error)}`,
          attempt,
        ),
      });
      return;
    }
    const delivery: Delivery<unknown> = { id, topic: this.topic, body, headers, attempt, publishedAt };
    try {
      await this.handler(delivery);
    } catch (error) {
      const outcome = failureOutcome(error, attempt, this.policy);
      if (outcome.kind === 'retry') {
        const where = outcome.delayMs > 0 ? `${this.topic} in ${outcome.delayMs} ms` : this.topic;
        await this.forward(ch, msg, where, this.host.route(this.topic, outcome.delayMs), {
          id,
          attempt: outcome.nextAttempt,
          publishedAt,
          headers: withFirstFailure(headers),
        });
      } else {
        const dead = deadLetterTopic(this.topic);
        await this.forward(ch, msg, dead, this.host.route(dead, 0), {
          id,
          attempt: 1,
          publishedAt,
          headers: deadLetterHeaders(headers, this.topic, outcome.reason, outcome.error, attempt),
        });
      }
      return;
    }
    ack(ch, msg);
  }

  /** Republishes the message (confirmed) and then acks the original; on failure leaves it to the broker. */
  private async forward(
    ch: Channel,
    msg: ConsumeMessage,
    /** Where the message is going, for the report if it cannot. */
    where: string,
    route: Route,
    next: { id: string; attempt: number; publishedAt: number; headers: Record<string, string> },
  ): Promise<void> {
    const props: Options.Publish = {
      persistent: true,
      messageId: next.id,
      contentType: 'application/json',
      timestamp: Math.floor(next.publishedAt / 1000),
      headers: { ...next.headers, [HEADERS.attempt]: next.attempt, [HEADERS.publishedAt]: next.publishedAt },
    };
    try {
      await this.host.republish(route, msg.content, props, `redelivery of ${next.id} on ${this.topic}`);
    } catch (error) {
      this.host.onError(error, `moving message ${next.id} of ${this.topic} to ${where}; the broker will redeliver it`);
      try {
        ch.nack(msg, false, true);
      } catch {
        // The channel is gone: the broker requeues the message by itself.
      }
      return;
    }
    ack(ch, msg);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.host.detach(this);
    if (this.reopenTimer) clearTimeout(this.reopenTimer);
    if (this.opening) await this.opening.catch(() => undefined);
    const ch = this.channel;
    if (ch && this.consumerTag) await ch.cancel(this.consumerTag).catch(() => undefined);
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.channel = undefined;
    if (ch) await ch.close().catch(() => undefined);
  }
}

function ack(ch: Channel, msg: ConsumeMessage): void {
  try {
    ch.ack(msg);
  } catch {
    // The channel closed under the handler: the broker redelivers the message (at least once).
  }
}
