/**
 * Publishing with publisher confirms over one confirm channel per connection. Publishes are pipelined:
 * each one resolves on its own confirm while many are outstanding. A publish declares the queues it needs
 * first (once per connection, wait queues periodically), is sent mandatory so that a message the broker
 * could not route comes back and is retried after redeclaring, and keeps retrying over reconnections
 * until its deadline, after which it fails with a clear `unavailable` error.
 */
import type { Channel, ConfirmChannel, Message, Options } from 'amqplib';
import { AppError, errorMessage, internal, unavailable } from '../errors/index.js';
import type { FailoverConnection } from './amqp-failover.js';
import { queueTypeMismatch, specType, type QueueSpec } from './amqp-topology.js';

/** AMQP reply codes that retrying cannot fix (access refused, precondition failed, not allowed). */
const PERMANENT_CODES = new Set([403, 406, 530]);

export function amqpCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

class DeadlineError extends Error {}

/** amqplib's error for a publish the broker nacked. */
function isNack(error: unknown): boolean {
  return error instanceof Error && error.message === 'message nacked';
}
class UnroutableError extends Error {}

/** Settles with `promise`, or rejects once `deadline` (epoch ms) passes. */
export function withDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) {
    // The caller made `promise` already (a publish sent, say): its later failure must not go unhandled.
    promise.catch(() => undefined);
    return Promise.reject(new DeadlineError(`${what}: deadline passed`));
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what}: timed out`)), remaining);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class AmqpPublisher {
  private channel: ConfirmChannel | undefined;
  private opening: Promise<ConfirmChannel> | undefined;
  private topology: Channel | undefined;
  private topologyOpening: Promise<Channel> | undefined;
  private readonly declared = new Map<string, number>();
  private readonly declaring = new Map<string, Promise<void>>();
  private readonly returned = new Set<string>();
  private drain: Promise<void> | undefined;
  private seq = 0;
  readonly inFlight = new Set<Promise<void>>();
  closed = false;

  constructor(
    private readonly model: FailoverConnection,
    private readonly timeoutMs: number,
    private readonly onError: (error: unknown, context: string) => void,
  ) {}

  /** After a reconnection: channels and declarations belonged to the old connection. */
  reset(): void {
    this.channel = undefined;
    this.opening = undefined;
    this.topology = undefined;
    this.topologyOpening = undefined;
    this.declared.clear();
  }

  private confirmChannel(deadline: number): Promise<ConfirmChannel> {
    if (this.channel) return Promise.resolve(this.channel);
    if (!this.opening) {
      const opening = this.model.createConfirmChannel().then((ch) => {
        ch.on('error', (e: unknown) => this.onError(e, 'publisher channel'));
        ch.on('close', () => {
          if (this.channel === ch) this.channel = undefined;
        });
        ch.on('return', (m: Message) => {
          const id = m.properties.correlationId as string | undefined;
          if (id !== undefined) this.returned.add(id);
        });
        if (this.opening === opening) {
          this.channel = ch;
          this.opening = undefined;
        } else {
          // Opened for a connection that has since been replaced (see reset).
          void ch.close().catch(() => undefined);
        }
        return ch;
      });
      opening.catch(() => {
        if (this.opening === opening) this.opening = undefined;
      });
      this.opening = opening;
    }
    return withDeadline(this.opening, deadline, 'opening the publisher channel');
  }

  private topologyChannel(deadline: number): Promise<Channel> {
    if (this.topology) return Promise.resolve(this.topology);
    if (!this.topologyOpening) {
      const opening = this.model.createChannel().then((ch) => {
        ch.on('error', (e: unknown) => this.onError(e, 'topology channel'));
        ch.on('close', () => {
          if (this.topology === ch) this.topology = undefined;
        });
        if (this.topologyOpening === opening) {
          this.topology = ch;
          this.topologyOpening = undefined;
        } else {
          void ch.close().catch(() => undefined);
        }
        return ch;
      });
      opening.catch(() => {
        if (this.topologyOpening === opening) this.topologyOpening = undefined;
      });
      this.topologyOpening = opening;
    }
    return withDeadline(this.topologyOpening, deadline, 'opening the topology channel');
  }

  /** Declares a queue unless it was declared on this connection recently enough. */
  async declare(spec: QueueSpec, deadline: number): Promise<void> {
    const at = this.declared.get(spec.name);
    if (at !== undefined && Date.now() - at < spec.redeclareMs) return;
    let pending = this.declaring.get(spec.name);
    if (!pending) {
      pending = (async () => {
        const ch = await this.topologyChannel(deadline);
        const sentAt = Date.now();
        try {
          await ch.assertQueue(spec.name, spec.options);
        } catch (error) {
          if (PERMANENT_CODES.has(amqpCode(error) ?? 0)) {
            const hint = queueTypeMismatch(error, spec.name, specType(spec));
            throw internal(`amqp: cannot declare queue ${spec.name}: ${hint ?? errorMessage(error)}`, {
              cause: error,
              retryable: false,
            });
          }
          throw error;
        }
        this.declared.set(spec.name, sentAt);
      })().finally(() => this.declaring.delete(spec.name));
      this.declaring.set(spec.name, pending);
    }
    await withDeadline(pending, deadline, `declaring ${spec.name}`);
  }

  forget(names: readonly string[]): void {
    for (const n of names) this.declared.delete(n);
  }

  private async send(
    ch: ConfirmChannel,
    queue: string,
    content: Buffer,
    props: Options.Publish,
    deadline: number,
  ): Promise<void> {
    while (this.drain) await withDeadline(this.drain, deadline, 'waiting for the publisher channel to drain');
    const id = `p${(this.seq++).toString(36)}`;
    try {
      await withDeadline(
        new Promise<void>((resolve, reject) => {
          const ok = ch.publish('', queue, content, { ...props, correlationId: id, mandatory: true }, (err: unknown) =>
            err ? reject(err) : resolve(),
          );
          if (!ok && !this.drain) {
            // The socket buffer is full: later publishes wait for it to drain (or for the channel to go).
            const drained = new Promise<void>((r) => {
              ch.once('drain', r);
              ch.once('close', r);
            });
            this.drain = drained.finally(() => {
              this.drain = undefined;
            });
          }
        }),
        deadline,
        `publishing to ${queue}`,
      );
      if (this.returned.has(id)) throw new UnroutableError(`queue ${queue} did not exist when the message arrived`);
    } finally {
      this.returned.delete(id);
    }
  }

  /**
   * Declares `declare` (in order), then publishes `content` to the queue `target` and resolves once the
   * broker has confirmed it. Retries transient failures (connection loss, nack, unroutable) until the
   * publish timeout.
   */
  publish(
    declare: readonly QueueSpec[],
    target: string,
    content: Buffer,
    props: Options.Publish,
    label: string,
  ): Promise<void> {
    const task = this.run(declare, target, content, props, label);
    this.inFlight.add(task);
    void task.catch(() => undefined).finally(() => this.inFlight.delete(task));
    return task;
  }

  private async run(
    declare: readonly QueueSpec[],
    target: string,
    content: Buffer,
    props: Options.Publish,
    label: string,
  ): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw unavailable('amqp message queue is closed');
      try {
        for (const spec of declare) await this.declare(spec, deadline);
        const ch = await this.confirmChannel(deadline);
        await this.send(ch, target, content, props, deadline);
        return;
      } catch (error) {
        if (error instanceof AppError && !error.retryable) throw error;
        if (error instanceof UnroutableError) this.forget(declare.map((s) => s.name));
        if (isNack(error)) this.dropChannel();
        if (!(error instanceof DeadlineError)) lastError = error;
        const remaining = deadline - Date.now();
        if (remaining <= 0 || error instanceof DeadlineError) {
          const why = lastError === undefined ? 'no connection to the broker' : errorMessage(lastError);
          throw unavailable(`${label}: not confirmed by the broker within ${this.timeoutMs} ms (${why})`, {
            cause: lastError,
            retryable: true,
          });
        }
        await sleep(Math.min(remaining, 25 * 2 ** Math.min(attempt, 6)));
      }
    }
  }

  /**
   * Retries go out on a new confirm channel after a nack. On a cluster, a channel that published to a
   * quorum queue while its leader moved can keep nacking that queue's messages for as long as it lives
   * (seen on RabbitMQ 3.10.8 after kill -9 of the leader's member); a new channel starts clean. Publishes
   * still unconfirmed on the old one fail with "channel closed" and are retried as well.
   */
  private dropChannel(): void {
    const ch = this.channel;
    if (!ch) return;
    this.channel = undefined;
    void ch.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    this.closed = true;
  }
}
