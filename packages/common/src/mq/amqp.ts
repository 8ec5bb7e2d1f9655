/**
 * The AMQP adapter (amqplib, RabbitMQ): durable queues, persistent messages, publisher confirms, delayed
 * publish and delayed redelivery through per-delay delay queues that the subscriptions hold and move
 * (topology in amqp-topology.ts, holding in amqp-subscription.ts), and reconnection after a broker or
 * connection loss, to the next of several broker addresses (a cluster's members, amqp-failover.ts) with
 * exponential backoff once all failed: subscriptions reopen by themselves and publishes wait for the
 * connection (up to `publishTimeoutMs`, then fail `unavailable`); a publish whose confirm was lost with the
 * connection is sent again (at least once). Queues are classic or quorum, the same way for both.
 */
import type { Options, Replies } from 'amqplib';
import { AppError, badRequest, errorMessage, unavailable } from '../errors/index.js';
import { openChannel, withDeadline } from './amqp-channel.js';
import { AmqpPublisher } from './amqp-publisher.js';
import { AmqpSubscription, type SubscriptionHost } from './amqp-subscription.js';
import { FailoverConnection } from './amqp-failover.js';
import {
  defaultQueueType,
  delayQueue,
  messageRoute,
  parseDelayQueue,
  publishProperties,
  quantizeDelay,
  QUEUE_TYPES,
  type QueueSpec,
  type QueueType,
} from './amqp-topology.js';
import { checkTopic, prepareMessage } from './message.js';
import { resolveQueueDefaults, resolveSubscribeOptions, type QueueDefaults, type QueueOptions } from './options.js';
import {
  deadLetterTopic,
  type Handler,
  type MessageQueue,
  type PublishOptions,
  type SubscribeOptions,
  type Subscription,
} from './types.js';

export interface AmqpQueueOptions extends QueueOptions {
  /**
   * amqp:// or amqps:// URL (credentials, host, port, vhost), or several separated by commas (the members
   * of a cluster): connections go to the first that answers, and after a loss to the next one.
   */
  url: string;
  /** classic or quorum queues; default quorum when `url` names several brokers, classic otherwise. */
  queueType?: QueueType;
  /**
   * Ignored (kept so that existing configurations still start): the length of the per-epoch quorum wait
   * queues, which the delay queues replaced (ADR 0015). Still checked as before: an integer >= 1000.
   */
  waitEpochMs?: number;
  /** How long a publish (or a redelivery) may wait for a connection and its confirm. Default 30 s. */
  publishTimeoutMs?: number;
  /** How long the first connection may take before the factory gives up. Default 30 s. */
  connectTimeoutMs?: number;
  /** Backoff between rounds over every broker address (with 20% jitter). Default 100 ms, x2, up to 10 s. */
  reconnect?: { initialMs?: number; maxMs?: number; factor?: number };
  /** AMQP heartbeat, detecting dead connections. Default 10 s (unless the URL sets one). */
  heartbeatSeconds?: number;
  /** Shown in the broker's connection list. */
  connectionName?: string;
  /** Where connection and redelivery problems are reported (default: console.warn). */
  onError?: (error: unknown, context: string) => void;
}

/** The URL (or comma-separated URLs) with every password masked, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@,]*):[^@/,]*@/g, '//$1:***@');
}

function isAuthFailure(error: unknown): boolean {
  return /ACCESS_REFUSED|403|authentication/i.test(errorMessage(error));
}

/** The broker closes the connection instead of opening it when the vhost is unknown or not permitted. */
function isVhostRefusal(error: unknown): boolean {
  return /Expected ConnectionOpenOk|NOT_ALLOWED|530/i.test(errorMessage(error));
}

/**
 * What is wrong with an AMQP URL on its face (undefined when nothing is): checked before any connection, so
 * a typo is one line at start-up instead of a 30 s retry that ends in a protocol error.
 */
export function checkAmqpUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL (check the host and that the port is a number from 1 to 65535)';
  }
  if (parsed.protocol !== 'amqp:' && parsed.protocol !== 'amqps:')
    return `must start with amqp:// or amqps://, not ${parsed.protocol}//`;
  if (parsed.hostname === '') return 'names no host';
  if (parsed.port === '0') return 'has port 0';
  const path = parsed.pathname;
  if (path.length > 1 && path.slice(1).includes('/'))
    return 'has more than one path segment: the vhost is one segment (write a "/" inside it as %2F)';
  for (const [name, value] of parsed.searchParams) {
    if (['heartbeat', 'frameMax', 'channelMax'].includes(name) && !/^\d+$/.test(value))
      return `has a non-numeric ${name}`;
  }
  return undefined;
}

/** The broker addresses of an `--mq-url` value: one URL, or several separated by commas. */
export function splitAmqpUrls(value: string): string[] {
  return value.split(',').map((u) => u.trim());
}

/**
 * What is wrong with a list of AMQP URLs (undefined when nothing is): each is checked as by checkAmqpUrl; a
 * problem names the address (password masked) when there are several.
 */
export function checkAmqpUrls(value: string): string | undefined {
  const urls = splitAmqpUrls(value);
  if (urls.length === 1) return checkAmqpUrl(urls[0]!);
  for (const [i, url] of urls.entries()) {
    if (url === '') return `has an empty address (number ${i + 1} of ${urls.length}) in its comma-separated list`;
    const problem = checkAmqpUrl(url);
    if (problem) return `address ${i + 1} of ${urls.length} (${redactUrl(url)}) ${problem}`;
  }
  const seen = new Set<string>();
  for (const url of urls) {
    const { host } = new URL(url);
    if (seen.has(host)) return `names ${host} twice`;
    seen.add(host);
  }
  return undefined;
}

function vhostOf(url: string): string {
  const path = new URL(url).pathname;
  return path.length <= 1 ? '/' : decodeURIComponent(path.slice(1));
}

/** Longest wait for one broker address to answer before the next is tried. */
const ADDRESS_TIMEOUT_MS = 10_000;

function withHeartbeat(url: string, seconds: number): string {
  if (/[?&]heartbeat=/.test(url)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}heartbeat=${seconds}`;
}

export class AmqpMessageQueue implements MessageQueue, SubscriptionHost {
  readonly kind = 'amqp' as const;
  private readonly publisher: AmqpPublisher;
  private readonly subscriptions = new Set<AmqpSubscription>();
  /**
   * The (rounded) delays of each topic's delay queues this process published to or consumes: the
   * subscriptions of a topic consume those published to, and queuesOf names them all.
   */
  private readonly delays = new Map<string, Set<number>>();
  /** Delay queues already reported as having no consumer (once per process). */
  private readonly unconsumedReported = new Set<string>();
  private connected = true;
  /** Set when close() starts: no new publishes or subscriptions (redeliveries still go out). */
  private closing = false;
  private closed = false;

  private constructor(
    readonly model: FailoverConnection,
    private readonly addresses: readonly string[],
    readonly queueType: QueueType,
    private readonly defaults: QueueDefaults,
    readonly timeoutMs: number,
    private readonly report: (error: unknown, context: string) => void,
  ) {
    this.publisher = new AmqpPublisher(model, timeoutMs, report, (spec, reply) => this.declared(spec, reply));
    model.on('connect', () => {
      this.connected = true;
      this.publisher.reset();
      for (const s of this.subscriptions) s.resume();
    });
    model.on('disconnect', (error: Error, index: number) => {
      this.connected = false;
      this.publisher.reset();
      const next = this.addresses.length > 1 ? ' to the next broker' : '';
      if (!this.closed) this.report(error, `connection to ${this.addresses[index]} lost; reconnecting${next}`);
    });
    model.on('blocked', (reason: string) => this.report(new Error(reason), 'broker blocked publishing'));
  }

  /** Connects (retrying with backoff up to `connectTimeoutMs`; failing at once on refused credentials). */
  static async connect(options: AmqpQueueOptions): Promise<AmqpMessageQueue> {
    if (typeof options.url !== 'string' || !/^amqps?:\/\//.test(options.url.trim()))
      throw badRequest('amqp message queue needs an amqp:// or amqps:// URL');
    const urlProblem = checkAmqpUrls(options.url);
    if (urlProblem) throw badRequest(`amqp URL ${redactUrl(options.url)} ${urlProblem}`);
    const urls = splitAmqpUrls(options.url);
    const queueType = options.queueType ?? defaultQueueType(urls.length);
    if (!(QUEUE_TYPES as readonly string[]).includes(queueType))
      throw badRequest(`amqp message queue: queueType must be one of ${QUEUE_TYPES.join(', ')}`);
    // Ignored since the delay queues replaced the wait queues, but checked as it was (1 s at least).
    if (options.waitEpochMs !== undefined && (!Number.isInteger(options.waitEpochMs) || options.waitEpochMs < 1_000))
      throw badRequest('amqp message queue: waitEpochMs must be an integer >= 1000 (it is ignored)');
    const defaults = resolveQueueDefaults(options);
    const publishTimeoutMs = options.publishTimeoutMs ?? 30_000;
    const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
    for (const [name, v] of Object.entries({ publishTimeoutMs, connectTimeoutMs })) {
      if (!Number.isFinite(v) || v <= 0) throw badRequest(`amqp message queue: ${name} must be a positive number`);
    }
    const report =
      options.onError ??
      ((error: unknown, context: string) => console.warn(`mq amqp: ${context}: ${errorMessage(error)}`));
    const model = new FailoverConnection({
      urls: urls.map((u) => withHeartbeat(u, options.heartbeatSeconds ?? 10)),
      // The socket timeout bounds a connection attempt to an address that does not answer at all.
      socketOptions: {
        clientProperties: { connection_name: options.connectionName ?? `anchor-${process.pid}` },
        timeout: Math.min(connectTimeoutMs, ADDRESS_TIMEOUT_MS),
      },
      backoff: {
        initialMs: options.reconnect?.initialMs ?? 100,
        maxMs: options.reconnect?.maxMs ?? 10_000,
        factor: options.reconnect?.factor ?? 2,
        jitter: 0.2,
      },
    });
    const addresses = urls.map(redactUrl);
    const where = addresses.join(', ');
    let lastError: unknown;
    // Without a listener an 'error' event would crash the process; failures surface through 'disconnect'.
    model.on('error', (e: unknown) => {
      lastError = e;
    });
    try {
      await withDeadline(
        new Promise<void>((resolve, reject) => {
          model.on('connect-failed', (error: unknown) => {
            lastError = error;
            if (isAuthFailure(error))
              reject(
                unavailable(`amqp: ${where} refused the credentials: ${errorMessage(error)}`, { retryable: false }),
              );
            else if (isVhostRefusal(error)) {
              reject(
                unavailable(
                  `amqp: ${where} refused the virtual host ${JSON.stringify(vhostOf(urls[0]!))}: it does not exist, or the user may not use it`,
                  { retryable: false },
                ),
              );
            }
          });
          model.waitForConnect().then(() => resolve(), reject);
        }),
        Date.now() + connectTimeoutMs,
        'connecting',
      );
    } catch (error) {
      await model.close().catch(() => undefined);
      if (AppError.is(error)) throw error;
      throw unavailable(
        `amqp: cannot connect to ${where} within ${connectTimeoutMs} ms (${lastError === undefined ? errorMessage(error) : errorMessage(lastError)})`,
        {
          cause: lastError ?? error,
        },
      );
    }
    return new AmqpMessageQueue(model, addresses, queueType, defaults, publishTimeoutMs, report);
  }

  isConnected(): boolean {
    return this.connected && !this.closing;
  }

  /** The broker address (password masked) of the current connection; undefined while reconnecting. */
  connectedBroker(): string | undefined {
    const index = this.model.connectedTo;
    return index === undefined ? undefined : this.addresses[index];
  }

  onError(error: unknown, context: string): void {
    if (!this.closed) this.report(error, context);
  }

  private assertOpen(): void {
    if (this.closing) throw unavailable('amqp message queue is closed');
  }

  async publish<T>(topic: string, body: T, options?: PublishOptions): Promise<void> {
    this.assertOpen();
    const m = prepareMessage(topic, body, options);
    const props = publishProperties({
      id: m.id,
      attempt: 1,
      publishedAt: m.publishedAt,
      headers: m.headers,
      ...(m.delayMs > 0 ? { dueAt: m.publishedAt + m.delayMs } : {}),
    });
    await this.republish(
      this.route(topic, m.delayMs),
      Buffer.from(m.json, 'utf8'),
      props,
      `publish ${m.id} to ${topic}`,
    );
    // This process's subscriptions of the topic (now or later) consume the delay queue, once the publish has
    // declared it: on RabbitMQ 3.10 a consume of a quorum queue another channel is still creating finds no Raft
    // server (`noproc`) and the broker closes the whole connection (541).
    if (m.delayMs > 0) this.learnDelay(topic, m.delayMs);
  }

  route(topic: string, delayMs: number): readonly QueueSpec[] {
    return messageRoute(topic, delayMs, this.queueType);
  }

  republish(route: readonly QueueSpec[], content: Buffer, props: Options.Publish, label: string): Promise<void> {
    return this.publisher.publish(route, content, props, label);
  }

  delaysOf(topic: string): Iterable<number> {
    return this.delays.get(topic) ?? [];
  }

  noteDelay(topic: string, delayMs: number): void {
    const ms = quantizeDelay(delayMs);
    let known = this.delays.get(topic);
    if (!known) this.delays.set(topic, (known = new Set()));
    known.add(ms);
  }

  /** A delay published with: noted, and consumed by this process's subscriptions of the topic from now on. */
  private learnDelay(topic: string, delayMs: number): void {
    const ms = quantizeDelay(delayMs);
    if (this.delays.get(topic)?.has(ms)) return;
    this.noteDelay(topic, ms);
    for (const s of this.subscriptions) if (s.topic === topic) s.addDelay(ms);
  }

  /**
   * A delay queue nobody consumes keeps its messages until a subscription does (one that lists the delay in
   * its `delays` option, or runs in the publishing process): said once, so that an operator can tell.
   */
  private declared(spec: QueueSpec, reply: Replies.AssertQueue): void {
    const delay = parseDelayQueue(spec.name);
    if (delay === undefined || reply.consumerCount > 0 || this.unconsumedReported.has(spec.name)) return;
    if ([...this.subscriptions].some((s) => s.topic === delay.topic)) return;
    this.unconsumedReported.add(spec.name);
    this.report(
      new Error(`delay queue ${spec.name} has no consumer`),
      `delayed messages to ${delay.topic} wait in ${spec.name} until a subscription of ${delay.topic} consumes it ` +
        `(one in this process, or one whose delays option lists ${delay.delayMs} ms)`,
    );
  }

  async subscribe<T>(topic: string, handler: Handler<T>, options?: SubscribeOptions): Promise<Subscription> {
    this.assertOpen();
    checkTopic(topic);
    if (typeof handler !== 'function') throw badRequest(`topic ${topic}: a handler must be a function`);
    const subscription = new AmqpSubscription(
      this,
      topic,
      handler as Handler<unknown>,
      resolveSubscribeOptions(this.defaults, options),
      options?.delays,
    );
    this.subscriptions.add(subscription);
    try {
      await subscription.start();
    } catch (error) {
      this.subscriptions.delete(subscription);
      await subscription.close();
      throw unavailable(`amqp: cannot subscribe to ${topic}: ${errorMessage(error)}`, { cause: error });
    }
    return subscription;
  }

  detach(subscription: AmqpSubscription): void {
    this.subscriptions.delete(subscription);
  }

  /**
   * The queues of a topic this process knows of: work queue, dead-letter queue, and the delay queues it
   * published to or its subscriptions consume.
   */
  queuesOf(topic: string): string[] {
    const delays = [...this.delaysOf(topic)].sort((a, b) => a - b);
    return [topic, deadLetterTopic(topic), ...delays.map((ms) => delayQueue(topic, ms).name)];
  }

  /**
   * Deletes a topic's queues (queuesOf; delay queues only other processes used are left). Messages in them
   * are lost. For tests and operations, not services.
   */
  async deleteTopic(topic: string): Promise<void> {
    checkTopic(topic);
    this.assertOpen();
    const ch = await openChannel(
      () => this.model.createChannel(),
      Date.now() + this.timeoutMs,
      'channel deleting queues',
      // A refused delete rejects deleteQueue itself; the channel's error event adds nothing.
      () => undefined,
    );
    try {
      for (const name of this.queuesOf(topic)) await ch.deleteQueue(name);
    } finally {
      await ch.close().catch(() => undefined);
    }
    this.publisher.forget(this.queuesOf(topic));
    this.delays.delete(topic);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.publisher.close();
    this.closed = true;
    await this.model.close().catch(() => undefined);
  }
}

export function createAmqpMessageQueue(options: AmqpQueueOptions): Promise<MessageQueue> {
  return AmqpMessageQueue.connect(options);
}
