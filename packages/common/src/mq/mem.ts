/**
 * The in-process adapter, with the semantics of the AMQP one so that unit tests exercise production
 * behaviour: topics are work queues that keep messages until a subscriber takes them, competing consumers
 * share a topic round-robin, each subscription runs at most `concurrency` handlers at once, a failed
 * handler's message comes back after the backoff until `maxAttempts`, then goes to the dead-letter topic,
 * and a non-retryable error dead-letters at once. Bodies are JSON-copied as on the wire.
 *
 * Nothing is durable: queued and delayed messages are lost with the process.
 */
import { unavailable } from '../errors/index.js';
import { checkTopic, deadLetterHeaders, prepareMessage, visibleHeaders, withFirstFailure } from './message.js';
import {
  failureOutcome,
  resolveQueueDefaults,
  resolveSubscribeOptions,
  type QueueDefaults,
  type QueueOptions,
} from './options.js';
import {
  deadLetterTopic,
  type Delivery,
  type Handler,
  type MessageQueue,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
} from './types.js';

interface QueuedMessage {
  id: string;
  json: string;
  /** User headers plus dead-letter details. */
  headers: Record<string, string>;
  attempt: number;
  publishedAt: number;
}

class Consumer implements Subscription {
  readonly inFlight = new Set<Promise<void>>();
  closed = false;

  constructor(
    readonly topic: string,
    private readonly handler: Handler<unknown>,
    readonly policy: QueueDefaults,
    private readonly queue: MemMessageQueue,
  ) {}

  get free(): boolean {
    return !this.closed && this.inFlight.size < this.policy.concurrency;
  }

  run(message: QueuedMessage): void {
    const delivery: Delivery<unknown> = {
      id: message.id,
      topic: this.topic,
      body: JSON.parse(message.json) as unknown,
      headers: visibleHeaders(message.headers),
      attempt: message.attempt,
      publishedAt: message.publishedAt,
    };
    const done: Promise<void> = Promise.resolve()
      .then(() => this.handler(delivery))
      .then(
        () => undefined,
        (error: unknown) => this.queue.failed(this, message, error),
      )
      .finally(() => {
        this.inFlight.delete(done);
        this.queue.dispatch(this.topic);
      });
    this.inFlight.add(done);
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.queue.detach(this);
    }
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }
}

/** FIFO with O(1) take (Array.shift is linear on long arrays). */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  take(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

interface Topic {
  ready: Fifo<QueuedMessage>;
  consumers: Consumer[];
  /** Round-robin position among the consumers. */
  turn: number;
}

export class MemMessageQueue implements MessageQueue {
  readonly kind = 'mem' as const;
  private readonly topics = new Map<string, Topic>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly defaults: QueueDefaults;
  private closed = false;

  constructor(options: QueueOptions = {}) {
    this.defaults = resolveQueueDefaults(options);
  }

  private topic(name: string): Topic {
    let t = this.topics.get(name);
    if (!t) this.topics.set(name, (t = { ready: new Fifo(), consumers: [], turn: 0 }));
    return t;
  }

  private later(ms: number, fn: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private enqueue(topic: string, message: QueuedMessage): void {
    if (this.closed) return;
    this.topic(topic).ready.push(message);
    this.dispatch(topic);
  }

  /** Hands ready messages to consumers with free slots, taking turns. */
  dispatch(name: string): void {
    const t = this.topics.get(name);
    if (!t) return;
    while (t.ready.length > 0 && t.consumers.length > 0) {
      let chosen: Consumer | undefined;
      for (let i = 0; i < t.consumers.length; i++) {
        const c = t.consumers[(t.turn + i) % t.consumers.length]!;
        if (c.free) {
          chosen = c;
          t.turn = (t.turn + i + 1) % t.consumers.length;
          break;
        }
      }
      if (!chosen) return;
      chosen.run(t.ready.take()!);
    }
  }

  failed(consumer: Consumer, message: QueuedMessage, error: unknown): void {
    const outcome = failureOutcome(error, message.attempt, consumer.policy);
    if (outcome.kind === 'retry') {
      const next = { ...message, attempt: outcome.nextAttempt, headers: withFirstFailure(message.headers) };
      this.later(outcome.delayMs, () => this.enqueue(consumer.topic, next));
      return;
    }
    this.enqueue(deadLetterTopic(consumer.topic), {
      ...message,
      attempt: 1,
      headers: deadLetterHeaders(message.headers, consumer.topic, outcome.reason, outcome.error, message.attempt),
    });
  }

  detach(consumer: Consumer): void {
    const t = this.topics.get(consumer.topic);
    if (!t) return;
    t.consumers = t.consumers.filter((c) => c !== consumer);
    t.turn = 0;
  }

  async publish<T>(topic: string, body: T, options?: PublishOptions): Promise<void> {
    if (this.closed) throw unavailable('mem message queue is closed');
    const m = prepareMessage(topic, body, options);
    const message: QueuedMessage = {
      id: m.id,
      json: m.json,
      headers: m.headers,
      attempt: 1,
      publishedAt: m.publishedAt,
    };
    if (m.delayMs > 0) this.later(m.delayMs, () => this.enqueue(topic, message));
    else this.enqueue(topic, message);
  }

  async subscribe<T>(topic: string, handler: Handler<T>, options?: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw unavailable('mem message queue is closed');
    checkTopic(topic);
    const consumer = new Consumer(
      topic,
      handler as Handler<unknown>,
      resolveSubscribeOptions(this.defaults, options),
      this,
    );
    this.topic(topic).consumers.push(consumer);
    this.dispatch(topic);
    return consumer;
  }

  isConnected(): boolean {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const consumers = [...this.topics.values()].flatMap((t) => t.consumers);
    await Promise.all(consumers.map((c) => c.close()));
    this.topics.clear();
  }
}

export function createMemMessageQueue(options?: QueueOptions): MessageQueue {
  return new MemMessageQueue(options);
}
