/**
 * One AMQP connection over several broker addresses (the members of a RabbitMQ cluster): the first that
 * answers, in the order given; after a loss, the next one after the address that was lost (a member that
 * just died is the last one to try again), each address in turn; after a whole round of failures, an
 * exponential backoff with jitter before the next round. It offers the part of amqplib's
 * RecoveringChannelModel the adapter uses (channels, waitForConnect, close, the connect / disconnect /
 * connect-failed / blocked / error events), because amqplib's own recovery reconnects to one URL only.
 */
import { EventEmitter } from 'node:events';
import { connect, type Channel, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { errorMessage } from '../errors/index.js';

export interface FailoverOptions {
  /** Broker addresses, tried in this order. */
  urls: readonly string[];
  /** amqplib socket options of every connection (client properties, socket timeout). */
  socketOptions: Record<string, unknown>;
  /** Backoff between rounds (jitter is a share of each delay). */
  backoff: { initialMs: number; maxMs: number; factor: number; jitter: number };
}

interface Waiter {
  resolve: (model: ChannelModel) => void;
  reject: (error: Error) => void;
}

export class FailoverConnection extends EventEmitter {
  private model: ChannelModel | undefined;
  private readonly waiters: Waiter[] = [];
  private readonly firstConnect: Promise<void>;
  private resolveFirst!: () => void;
  private rejectFirst!: (error: Error) => void;
  /** Index of the address the next attempt goes to. */
  private next = 0;
  /** Failed attempts since the last connection or the last backoff (a round ends when it reaches urls.length). */
  private failedInRound = 0;
  private rounds = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Index of the address of the current connection (undefined while there is none). */
  connectedTo: number | undefined;

  constructor(private readonly options: FailoverOptions) {
    super();
    if (options.urls.length === 0) throw new Error('FailoverConnection needs at least one broker address');
    this.firstConnect = new Promise<void>((resolve, reject) => {
      this.resolveFirst = resolve;
      this.rejectFirst = reject;
    });
    this.firstConnect.catch(() => undefined);
    // Deferred so that the caller can attach its listeners before the first event.
    setImmediate(() => void this.attempt());
  }

  waitForConnect(): Promise<void> {
    return this.firstConnect;
  }

  createChannel(): Promise<Channel> {
    return this.current().then((m) => m.createChannel());
  }

  createConfirmChannel(): Promise<ConfirmChannel> {
    return this.current().then((m) => m.createConfirmChannel());
  }

  private current(): Promise<ChannelModel> {
    if (this.model) return Promise.resolve(this.model);
    if (this.stopped) return Promise.reject(new Error('Connection closed'));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    const index = this.next;
    const url = this.options.urls[index]!;
    let model: ChannelModel;
    try {
      model = await connect(url, this.options.socketOptions);
    } catch (error) {
      if (this.stopped) return;
      this.next = (index + 1) % this.options.urls.length;
      this.failedInRound++;
      this.emit('connect-failed', toError(error), index);
      this.schedule();
      return;
    }
    if (this.stopped) {
      await model.close().catch(() => undefined);
      return;
    }
    this.model = model;
    this.connectedTo = index;
    this.failedInRound = 0;
    this.rounds = 0;
    model.on('error', (e: unknown) => this.emit('error', toError(e)));
    model.on('blocked', (reason: string) => this.emit('blocked', reason));
    model.on('unblocked', () => this.emit('unblocked'));
    model.once('close', (e: unknown) => this.lost(model, index, e));
    this.resolveFirst();
    for (const w of this.waiters.splice(0)) w.resolve(model);
    this.emit('connect', model, index);
  }

  private lost(model: ChannelModel, index: number, cause: unknown): void {
    if (this.model !== model) return;
    this.model = undefined;
    this.connectedTo = undefined;
    if (this.stopped) return;
    this.emit('disconnect', toError(cause ?? new Error('connection closed')), index);
    // The member we lost is tried last: start the round at the one after it, at once.
    this.next = (index + 1) % this.options.urls.length;
    this.failedInRound = 0;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped || this.timer) return;
    let delay = 0;
    if (this.failedInRound >= this.options.urls.length) {
      // Every address failed once: back off before the next round.
      const { initialMs, maxMs, factor, jitter } = this.options.backoff;
      const base = Math.min(maxMs / (1 + jitter), initialMs * factor ** this.rounds);
      delay = Math.max(0, Math.round(base + (Math.random() * 2 - 1) * base * jitter));
      this.rounds++;
      this.failedInRound = 0;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.attempt();
    }, delay);
  }

  async close(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const closed = new Error('Connection closed');
    this.rejectFirst(closed);
    for (const w of this.waiters.splice(0)) w.reject(closed);
    const model = this.model;
    this.model = undefined;
    if (model) await model.close().catch(() => undefined);
  }
}

function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(errorMessage(e));
}
