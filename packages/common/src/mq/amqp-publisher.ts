/**
 * Publishing with publisher confirms over one confirm channel per connection. Publishes are pipelined:
 * each one resolves on its own confirm while many are outstanding. A publish declares the queues of its
 * route first (once per connection), is sent mandatory so that a message the broker could not route comes
 * back and is retried after redeclaring, and keeps retrying over reconnections until its deadline, after
 * which it fails with a clear `unavailable` error.
 */
import type { Channel, ConfirmChannel, Message, Options, Replies } from 'amqplib';
import { AppError, errorMessage, internal, unavailable } from '../errors/index.js';
import type { FailoverConnection } from './amqp-failover.js';
import { DeadlineError, KeptChannel, withDeadline } from './amqp-channel.js';
import { queueTypeMismatch, specType, type QueueSpec } from './amqp-topology.js';

/** AMQP reply codes that retrying cannot fix (access refused, precondition failed, not allowed). */
const PERMANENT_CODES = new Set([403, 406, 530]);

export function amqpCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** amqplib's error for a publish the broker nacked. */
function isNack(error: unknown): boolean {
  return error instanceof Error && error.message === 'message nacked';
}
class UnroutableError extends Error {}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class AmqpPublisher {
  private readonly confirms: KeptChannel<ConfirmChannel>;
  private readonly topology: KeptChannel<Channel>;
  /** The queues declared on this connection. */
  private readonly declared = new Set<string>();
  private readonly declaring = new Map<string, Promise<void>>();
  private readonly returned = new Set<string>();
  private drain: Promise<void> | undefined;
  private seq = 0;
  readonly inFlight = new Set<Promise<void>>();
  closed = false;

  constructor(
    model: FailoverConnection,
    private readonly timeoutMs: number,
    onError: (error: unknown, context: string) => void,
    /** Told of each declaration the broker answered (its message and consumer counts). */
    private readonly onDeclared: (spec: QueueSpec, reply: Replies.AssertQueue) => void = () => undefined,
  ) {
    this.confirms = new KeptChannel(
      () => model.createConfirmChannel(),
      'publisher channel',
      onError,
      (ch) =>
        ch.on('return', (m: Message) => {
          const id = m.properties.correlationId as string | undefined;
          if (id !== undefined) this.returned.add(id);
        }),
    );
    this.topology = new KeptChannel(() => model.createChannel(), 'topology channel', onError);
  }

  /** After a reconnection: channels and declarations belonged to the old connection. */
  reset(): void {
    this.confirms.reset();
    this.topology.reset();
    this.declared.clear();
  }

  /** Declares a queue unless it was declared on this connection. */
  async declare(spec: QueueSpec, deadline: number): Promise<void> {
    if (this.declared.has(spec.name)) return;
    let pending = this.declaring.get(spec.name);
    if (!pending) {
      pending = (async () => {
        const ch = await this.topology.get(deadline);
        let reply: Replies.AssertQueue;
        try {
          reply = await ch.assertQueue(spec.name, spec.options);
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
        this.declared.add(spec.name);
        this.onDeclared(spec, reply);
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
   * Declares the queues of `route` (in order), then publishes `content` to the last of them and resolves once
   * the broker has confirmed it. Retries transient failures (connection loss, nack, unroutable) until the
   * publish timeout.
   */
  publish(route: readonly QueueSpec[], content: Buffer, props: Options.Publish, label: string): Promise<void> {
    const task = this.run(route, content, props, label);
    this.inFlight.add(task);
    void task.catch(() => undefined).finally(() => this.inFlight.delete(task));
    return task;
  }

  private async run(
    route: readonly QueueSpec[],
    content: Buffer,
    props: Options.Publish,
    label: string,
  ): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw unavailable('amqp message queue is closed');
      try {
        for (const spec of route) await this.declare(spec, deadline);
        const ch = await this.confirms.get(deadline);
        await this.send(ch, route[route.length - 1]!.name, content, props, deadline);
        return;
      } catch (error) {
        if (error instanceof AppError && !error.retryable) throw error;
        if (error instanceof UnroutableError) this.forget(route.map((s) => s.name));
        // Retries go out on a new confirm channel after a nack. On a cluster, a channel that published to a
        // quorum queue while its leader moved can keep nacking that queue's messages for as long as it lives
        // (seen on RabbitMQ 3.10.8 after kill -9 of the leader's member); a new channel starts clean.
        // Publishes still unconfirmed on the old one fail with "channel closed" and are retried as well.
        if (isNack(error)) this.confirms.drop();
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

  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    this.closed = true;
  }
}
