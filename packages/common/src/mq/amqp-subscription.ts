/**
 * One subscription: a channel consuming the topic's work queue (prefetch = pool size) and the topic's delay
 * queues (prefetch DELAY_PREFETCH each). A handler that resolves acks its message; one that throws has it
 * republished (with a confirm) to the delay queue of its backoff, or to the dead-letter queue, and only then
 * acked. A message from a delay queue is held until its due time (x-due-at), republished to the work queue
 * with a confirm, and only then acked. So a crash at any point leaves the message in the broker (at least
 * once): what a dead subscriber held unacked is redelivered to another. After a connection or channel loss
 * the subscription reopens itself; deliveries in flight on the lost channel are redelivered by the broker.
 *
 * The delay queues it consumes: those of its own retry backoffs (known from its policy), those of the delays
 * its process published to the topic with (the queue tells it of new ones), and its `delays` option (ADR 0015).
 */
import { randomUUID } from 'node:crypto';
import type { Channel, ConsumeMessage, Options } from 'amqplib';
import type { FailoverConnection } from './amqp-failover.js';
import { errorMessage } from '../errors/index.js';
import { openChannel } from './amqp-channel.js';
import {
  delayQueue,
  publishProperties,
  quantizeDelay,
  queueTypeMismatch,
  workQueue,
  type OutgoingMessage,
  type QueueSpec,
  type QueueType,
} from './amqp-topology.js';
import { deadLetterHeaders, HEADERS, MAX_DELAY_MS, visibleHeaders, withFirstFailure } from './message.js';
import { failureOutcome, retryBackoffs, type QueueDefaults } from './options.js';
import { deadLetterTopic, type Delivery, type Handler, type Subscription } from './types.js';

/** What a subscription needs from its queue. */
export interface SubscriptionHost {
  readonly model: FailoverConnection;
  readonly queueType: QueueType;
  readonly timeoutMs: number;
  isConnected(): boolean;
  /** The queues a message to `topic` delayed by `delayMs` goes through (its target last). */
  route(topic: string, delayMs: number): readonly QueueSpec[];
  republish(route: readonly QueueSpec[], content: Buffer, props: Options.Publish, label: string): Promise<void>;
  /** The (rounded) delays this process has published to `topic` with. */
  delaysOf(topic: string): Iterable<number>;
  /** Records a delay queue of `topic` a subscription consumes (for queuesOf and deleteTopic). */
  noteDelay(topic: string, delayMs: number): void;
  detach(subscription: AmqpSubscription): void;
  onError(error: unknown, context: string): void;
}

/** Wait before reopening a channel that closed while the connection stayed up. */
const REOPEN_DELAY_MS = 1_000;
/**
 * Unacked messages a subscription holds from each delay queue. A delay queue's messages come due in the
 * order they were queued, so the window only has to cover those due soonest; it bounds memory.
 */
export const DELAY_PREFETCH = 200;

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
  /** The (rounded) delays whose queues this subscription consumes. */
  private readonly delays = new Set<number>();
  /** On the current channel: consumer tag per delay consumed. */
  private readonly consuming = new Map<number, string>();
  /** On the current channel: delayed messages held until due, with their timers. */
  private readonly held = new Map<ConsumeMessage, NodeJS.Timeout>();
  /** Delay consumers are started one at a time, in this chain. */
  private delaySync: Promise<void> = Promise.resolve();

  constructor(
    private readonly host: SubscriptionHost,
    readonly topic: string,
    private readonly handler: Handler<unknown>,
    private readonly policy: QueueDefaults,
    /** Delays (ms) other processes publish to the topic with (SubscribeOptions.delays). */
    delays: Iterable<number> = [],
  ) {
    for (const ms of [...retryBackoffs(policy, quantizeDelay), ...host.delaysOf(topic), ...delays])
      this.delays.add(quantizeDelay(ms));
    for (const ms of this.delays) host.noteDelay(topic, ms);
  }

  /** The (rounded) delays whose queues this subscription consumes, ascending. */
  delayQueues(): number[] {
    return [...this.delays].sort((a, b) => a - b);
  }

  /** Consumes the delay queue of `delayMs` too (a delay the process has just published with). */
  addDelay(delayMs: number): void {
    const ms = quantizeDelay(delayMs);
    if (this.closed || this.delays.has(ms)) return;
    this.delays.add(ms);
    this.host.noteDelay(this.topic, ms);
    // Before the work consumer exists, open() starts the delay consumers itself (after it, with their prefetch).
    const ch = this.channel;
    if (ch && this.consumerTag)
      this.consumeDelays(ch).catch((error: unknown) =>
        this.host.onError(error, `consuming the delay queue of ${ms} ms of ${this.topic}`),
      );
  }

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
    this.consuming.clear();
    // The broker hands the held messages to another consumer (or to us once we are back).
    this.releaseHeld();
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
      await this.assertQueue(ch, workQueue(this.topic, this.host.queueType));
      await ch.prefetch(this.policy.concurrency);
      this.channel = ch;
      const { consumerTag } = await ch.consume(this.topic, (msg) => this.onMessage(ch, msg), { noAck: false });
      if (this.channel === ch) this.consumerTag = consumerTag;
      await this.consumeDelays(ch);
    } catch (error) {
      if (this.channel === ch) this.channel = undefined;
      await ch.close().catch(() => undefined);
      throw error;
    }
  }

  private async assertQueue(ch: Channel, spec: QueueSpec): Promise<void> {
    await ch.assertQueue(spec.name, spec.options).catch((error: unknown) => {
      const hint = queueTypeMismatch(error, spec.name, this.host.queueType);
      throw hint === undefined ? error : new Error(hint, { cause: error });
    });
  }

  /** Starts a consumer on every delay queue not consumed yet on `ch` (serialised; declares each first). */
  private consumeDelays(ch: Channel): Promise<void> {
    const run = this.delaySync.then(async () => {
      let qos = false;
      for (;;) {
        if (this.channel !== ch || this.closed) return;
        const ms = [...this.delays].find((d) => !this.consuming.has(d));
        if (ms === undefined) return;
        // Per-consumer prefetch, for the consumers started after it (the work consumer keeps its own).
        if (!qos) await ch.prefetch(DELAY_PREFETCH);
        qos = true;
        const spec = delayQueue(this.topic, ms, this.host.queueType);
        await this.assertQueue(ch, spec);
        const { consumerTag } = await ch.consume(spec.name, (msg) => this.onDelayed(ch, msg), { noAck: false });
        if (this.channel === ch) this.consuming.set(ms, consumerTag);
      }
    });
    this.delaySync = run.catch(() => undefined);
    return run;
  }

  /** A message from a delay queue: held until its due time, then moved to the work queue. */
  private onDelayed(ch: Channel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      // The broker cancelled a delay consumer (its queue was deleted): start over, redeclaring the queues.
      this.lost(ch);
      void ch.close().catch(() => undefined);
      return;
    }
    if (this.channel !== ch) return;
    const raw = (msg.properties.headers ?? {}) as Record<string, unknown>;
    const dueAt = positiveInt(raw[HEADERS.dueAt]) ?? 0;
    const wait = Math.min(MAX_DELAY_MS, Math.max(0, dueAt - Date.now()));
    const timer = setTimeout(() => {
      this.held.delete(msg);
      if (this.channel !== ch || this.closed) return;
      const task = this.moveDue(ch, msg, raw)
        .catch((error: unknown) => this.host.onError(error, `moving a delayed message of ${this.topic}`))
        .finally(() => this.inFlight.delete(task));
      this.inFlight.add(task);
    }, wait);
    // Held messages are the broker's (unacked): they must not keep a process alive that is otherwise done.
    timer.unref();
    this.held.set(msg, timer);
  }

  /** Republishes a due message to the work queue (confirmed), then acks it; on failure hands it back. */
  private async moveDue(ch: Channel, msg: ConsumeMessage, raw: Record<string, unknown>): Promise<void> {
    const headers = { ...raw };
    delete headers[HEADERS.dueAt];
    const id = typeof msg.properties.messageId === 'string' ? msg.properties.messageId : randomUUID();
    const props: Options.Publish = {
      persistent: true,
      messageId: id,
      contentType: typeof msg.properties.contentType === 'string' ? msg.properties.contentType : 'application/json',
      headers,
      ...(typeof msg.properties.timestamp === 'number' ? { timestamp: msg.properties.timestamp } : {}),
    };
    await this.republishThenAck(
      ch,
      msg,
      this.host.route(this.topic, 0),
      props,
      `delayed ${id} to ${this.topic}`,
      `moving delayed message ${id} to ${this.topic}; the broker will redeliver it`,
    );
  }

  /** Stops holding: the messages stay unacked until their channel closes, which returns them to the broker. */
  private releaseHeld(): void {
    for (const timer of this.held.values()) clearTimeout(timer);
    this.held.clear();
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
        // The delay queue of the backoff (one this subscription consumes); the jitter goes into the due time.
        await this.forward(ch, msg, where, this.host.route(this.topic, outcome.backoffMs), {
          id,
          attempt: outcome.nextAttempt,
          publishedAt,
          headers: withFirstFailure(headers),
          ...(outcome.delayMs > 0 ? { dueAt: Date.now() + outcome.delayMs } : {}),
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
    route: readonly QueueSpec[],
    next: OutgoingMessage,
  ): Promise<void> {
    await this.republishThenAck(
      ch,
      msg,
      route,
      publishProperties(next),
      `redelivery of ${next.id} on ${this.topic}`,
      `moving message ${next.id} of ${this.topic} to ${where}; the broker will redeliver it`,
    );
  }

  /** Publishes `msg`'s body along `route` (confirmed), then acks `msg`; on failure reports it and hands it back. */
  private async republishThenAck(
    ch: Channel,
    msg: ConsumeMessage,
    route: readonly QueueSpec[],
    props: Options.Publish,
    what: string,
    failure: string,
  ): Promise<void> {
    try {
      await this.host.republish(route, msg.content, props, what);
    } catch (error) {
      this.host.onError(error, failure);
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
    await this.delaySync;
    if (ch) for (const tag of this.consuming.values()) await ch.cancel(tag).catch(() => undefined);
    // Messages held for later go back to the broker with the channel; those being moved finish first.
    this.releaseHeld();
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
