import { errorMessage, isRetryable } from '@anchor/common/errors';
import { deliveryOutcome } from './failure-outcomes.js';
import type { HttpClient } from '@anchor/common/http-client';
import type { Logger } from '@anchor/common/log';
import type { Delivery as QueueDelivery, MessageQueue, Subscription } from '@anchor/common/mq';
import { queryPages, type Store, type StoreProvider } from '@anchor/common/storage';
import type { DeadLetterSource } from '../dead-letters/dead-letter-source.js';
import type { NodeMetrics } from '../observability/node-metrics.js';
import type { ActivityStore } from './activity-store.js';
import type { ActorResolver } from './actor-resolver.js';
import { BROADCAST_STORE, OUTBOX_TOPIC, type BroadcastMessage, type PendingBroadcast } from './outbox.js';
import { ACTIVITY_MEDIA_TYPE, PUBLIC, type StoredActivity } from './vocabulary.js';

/** Topic of single deliveries (one activity to one inbox). */
export const DELIVERY_TOPIC = 'node.activity.delivery';
/** One record per (activity, inbox): the guarantee that an activity reaches an inbox once. */
export const DELIVERY_STORE = 'activity-delivery';

export type DeliveryStatus = 'queued' | 'delivered' | 'dropped' | 'dead';

export interface DeliveryRecord {
  activityId: string;
  inbox: string;
  /** The service the inbox belongs to. */
  recipient: string;
  status: DeliveryStatus;
  queuedAt: number;
  updatedAt: number;
  lastError?: string;
}

interface DeliverMessage {
  key: string;
}

export interface DeliveryOptions {
  serviceId: string;
  /** This service's followers and witnesses collections, expanded from the store. */
  followersIri: string;
  witnessesIri: string;
  maxAttempts: number;
  /** Concurrent deliveries, and concurrent fan-outs (`--mq-outbox-pool`: Orb's outbox pool covers both). */
  concurrency: number;
}

/** Pending fan-outs older than this are queued again by the sweep (their message was lost). */
const BROADCAST_STALE_MS = 60_000;
/** Recipients resolved at once within one fan-out (Orb's outbox resolve concurrency). */
const RESOLVE_CONCURRENCY = 10;

/**
 * Fan-out and delivery (orb.md §3.4): a posted activity's recipients are expanded (this service's
 * followers and witnesses from the store, other IRIs through host-meta and actor documents; the public
 * audience, this service itself and excluded services are skipped), each inbox gets a delivery record
 * (insert-if-absent: never twice to one inbox) and a queued delivery: a signed POST, retried with the
 * queue's exponential backoff on network errors and 5xx, dropped on 4xx, dead-lettered after the
 * maximum attempts. A recipient whose resolution fails for a retryable reason is retried on its own.
 */
export class DeliveryService {
  private readonly subscriptions: Subscription[] = [];
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Serialised activities by id: a fan-out to many inboxes serialises once. */
  private readonly bodies = new Map<string, Buffer>();

  private constructor(
    private readonly deps: {
      store: ActivityStore;
      broadcasts: Store<PendingBroadcast>;
      deliveries: Store<DeliveryRecord>;
      mq: MessageQueue;
      httpClient: HttpClient;
      actors: ActorResolver;
      metrics: NodeMetrics;
      log: Logger;
      options: DeliveryOptions;
    },
  ) {}

  static async open(
    provider: StoreProvider,
    deps: {
      store: ActivityStore;
      mq: MessageQueue;
      httpClient: HttpClient;
      actors: ActorResolver;
      metrics: NodeMetrics;
      log: Logger;
      options: DeliveryOptions;
    },
  ): Promise<DeliveryService> {
    return new DeliveryService({
      ...deps,
      broadcasts: await openBroadcastStore(provider),
      // Read by key only. Without indexes a record's insert and its status change are written straight
      // to the store; an indexed put is a transaction that calls back into JavaScript for the old record.
      deliveries: await provider.open<DeliveryRecord>(DELIVERY_STORE),
    });
  }

  get deliveries(): Store<DeliveryRecord> {
    return this.deps.deliveries;
  }

  async start(): Promise<void> {
    const { mq, options } = this.deps;
    this.subscriptions.push(
      await mq.subscribe<BroadcastMessage>(OUTBOX_TOPIC, (delivery) => this.broadcast(delivery), {
        concurrency: options.concurrency,
      }),
      await mq.subscribe<DeliverMessage>(DELIVERY_TOPIC, (delivery) => this.deliver(delivery), {
        concurrency: options.concurrency,
      }),
    );
    await this.requeueBroadcasts(0);
    this.sweepTimer = setInterval(() => {
      this.requeueBroadcasts(BROADCAST_STALE_MS).catch((error: unknown) =>
        this.deps.log.warn('could not re-queue pending fan-outs', { err: errorMessage(error) }),
      );
    }, BROADCAST_STALE_MS);
    this.sweepTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await Promise.all(this.subscriptions.splice(0).map((subscription) => subscription.close()));
  }

  /**
   * Its dead letters: single deliveries that failed on every attempt (the record says `dead`). A replay sets
   * the record back to `queued`; a discarded one stays `dead`.
   */
  deadLetterSource(): DeadLetterSource {
    const keyOf = (body: unknown): string | undefined => {
      const key = (body as { key?: unknown } | null)?.key;
      return typeof key === 'string' ? key : undefined;
    };
    return {
      topic: DELIVERY_TOPIC,
      describe: async (body) => {
        const key = keyOf(body);
        const record = key === undefined ? undefined : await this.deps.deliveries.get(key);
        if (!record) return undefined;
        return { activityId: record.activityId, inbox: record.inbox, recipient: record.recipient };
      },
      reviving: async (body) => {
        const key = keyOf(body);
        const record = key === undefined ? undefined : await this.deps.deliveries.get(key);
        if (key === undefined || record?.status !== 'dead') return;
        await this.deps.deliveries.put(key, { ...record, status: 'queued', updatedAt: Date.now() });
      },
      discarding: async () => undefined,
    };
  }

  /**
   * Its fan-out dead letters: a recipient that could not be resolved on any attempt (its actor document or
   * host-meta unreachable: a peer down before this node knew its inbox), or a whole fan-out that kept failing.
   * A replay resolves and delivers again; discarding a whole fan-out forgets it (the sweep would queue it again).
   */
  fanOutDeadLetterSource(): DeadLetterSource {
    const messageOf = (body: unknown): BroadcastMessage | undefined => {
      const { activityId, target } = (body ?? {}) as Partial<Record<keyof BroadcastMessage, unknown>>;
      if (typeof activityId !== 'string') return undefined;
      return typeof target === 'string' ? { activityId, target } : { activityId };
    };
    return {
      topic: OUTBOX_TOPIC,
      describe: async (body) => {
        const message = messageOf(body);
        if (!message) return undefined;
        return message.target === undefined
          ? { activityId: message.activityId, recipients: 'all' }
          : { activityId: message.activityId, recipient: message.target };
      },
      reviving: async () => undefined,
      discarding: async (body) => {
        const message = messageOf(body);
        if (message && message.target === undefined) await this.deps.broadcasts.delete(message.activityId);
      },
    };
  }

  /** Fan-outs posted before a crash or a restart (or whose queue message was lost), queued again. */
  private async requeueBroadcasts(olderThanMs: number): Promise<void> {
    const before = Date.now() - olderThanMs;
    for await (const items of queryPages(this.deps.broadcasts, { where: { postedAt: { lte: before } } })) {
      for (const { value } of items)
        await this.deps.mq.publish<BroadcastMessage>(OUTBOX_TOPIC, { activityId: value.activityId });
    }
  }

  /** Resolves the recipients of a posted activity (or one retried recipient) and queues one delivery per inbox. */
  private async broadcast({ body }: QueueDelivery<BroadcastMessage>): Promise<void> {
    const { activityId, target } = body;
    const pending = target === undefined ? await this.deps.broadcasts.get(activityId) : undefined;
    if (target === undefined && pending === undefined) return;
    const activity = await this.deps.store.get(activityId);
    if (!activity) {
      this.deps.log.error('a queued fan-out names an unknown activity', { activityId });
      return;
    }
    const exclude = new Set([this.deps.options.serviceId, ...(pending?.exclude ?? [])]);
    const services = target !== undefined ? [target] : await this.expandRecipients(activity);
    const targets = [...new Set(services)].filter((service) => !exclude.has(service));

    const inboxes = new Map<string, string>();
    const resolved = this.deps.metrics.outboxResolveInboxesSeconds.startTimer();
    await forEachConcurrently(targets, RESOLVE_CONCURRENCY, async (service) => {
      try {
        for (const actor of await this.deps.actors.recipients(service))
          if (!exclude.has(actor.id)) inboxes.set(actor.inbox, actor.id);
      } catch (error) {
        if (isRetryable(error)) {
          // A retried recipient goes back to the queue's backoff; in a fan-out only this recipient waits,
          // retried as a message of its own.
          if (target !== undefined) throw error;
          this.deps.log.warn('recipient could not be resolved; retrying', {
            activityId,
            recipient: service,
            err: errorMessage(error),
          });
          await this.deps.mq.publish<BroadcastMessage>(OUTBOX_TOPIC, { activityId, target: service });
        } else {
          this.deps.metrics.deliveries.inc({ outcome: 'dropped' });
          this.deps.log.warn('recipient dropped: it cannot be resolved', {
            activityId,
            recipient: service,
            err: errorMessage(error),
          });
        }
      }
    });
    resolved();

    const toQueue = await this.recordDeliveries(activityId, inboxes, pending !== undefined);
    await Promise.all(toQueue.map((key) => this.deps.mq.publish<DeliverMessage>(DELIVERY_TOPIC, { key })));
    // Only once every delivery is queued: a crash before this replays the fan-out.
    if (target === undefined) await this.deps.broadcasts.delete(activityId);
  }

  /**
   * Inserts the delivery record of each inbox (never a second one) and says which deliveries to queue: the
   * new ones and, for a replayed fan-out (a crash before its end), those still queued; delivered ones stay
   * delivered. Each record is an insert-if-absent of its own (they are independent: a replay finds the ones
   * written before), all issued at once so the store commits them together.
   */
  private async recordDeliveries(
    activityId: string,
    inboxes: ReadonlyMap<string, string>,
    replay: boolean,
  ): Promise<string[]> {
    const now = Date.now();
    const records = [...inboxes].map(([inbox, recipient]): [string, DeliveryRecord] => [
      `${activityId}|${inbox}`,
      { activityId, inbox, recipient, status: 'queued', queuedAt: now, updatedAt: now },
    ]);
    const inserted = await Promise.all(records.map(([key, record]) => this.deps.deliveries.insert(key, record)));
    const queued: string[] = [];
    for (const [i, [key]] of records.entries()) {
      if (inserted[i] || (replay && (await this.deps.deliveries.get(key))?.status === 'queued')) queued.push(key);
    }
    return queued;
  }

  /** The services an activity is addressed to: `to` and `cc`, with this service's collections expanded. */
  private async expandRecipients(activity: StoredActivity): Promise<string[]> {
    const addressed = [activity.to, activity.cc]
      .flatMap((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
      .filter((iri): iri is string => typeof iri === 'string');
    const services: string[] = [];
    const me = this.deps.options.serviceId;
    for (const iri of addressed) {
      if (iri === PUBLIC) continue;
      if (iri === this.deps.options.followersIri) services.push(...(await this.deps.store.allRefIris('follower', me)));
      else if (iri === this.deps.options.witnessesIri)
        services.push(...(await this.deps.store.allRefIris('witness', me)));
      else services.push(iri);
    }
    return services;
  }

  /** One signed POST of an activity to an inbox. */
  private async deliver({ body, attempt }: QueueDelivery<DeliverMessage>): Promise<void> {
    const record = await this.deps.deliveries.get(body.key);
    if (record?.status !== 'queued') return;
    const payload = await this.serialised(record.activityId);
    if (payload === undefined) {
      await this.finish(body.key, record, 'dropped', 'the activity is no longer stored');
      return;
    }
    let failure: unknown;
    try {
      await this.deps.httpClient.request(record.inbox, {
        method: 'POST',
        body: payload,
        headers: { 'content-type': ACTIVITY_MEDIA_TYPE },
        responseType: 'text',
      });
    } catch (error) {
      failure = error;
    }
    const outcome = deliveryOutcome(failure, attempt, this.deps.options.maxAttempts);
    const reason = failure === undefined ? undefined : errorMessage(failure);
    const where = { activityId: record.activityId, inbox: record.inbox, attempt, err: reason };
    switch (outcome) {
      case 'delivered':
        await this.finish(body.key, record, 'delivered');
        return;
      case 'dropped':
        this.deps.log.warn('delivery refused by the recipient; dropped', where);
        await this.finish(body.key, record, 'dropped', reason);
        return;
      case 'dead':
        this.deps.log.error('delivery failed on every attempt; dead-lettered', where);
        await this.finish(body.key, record, 'dead', reason);
        throw failure;
      case 'retry':
        this.deps.metrics.deliveries.inc({ outcome: 'retry' });
        this.deps.log.debug('delivery failed; retrying', () => where);
        // The queue redelivers with its backoff.
        throw failure;
    }
  }

  private async finish(
    key: string,
    record: DeliveryRecord,
    status: Exclude<DeliveryStatus, 'queued'>,
    lastError?: string,
  ): Promise<void> {
    await this.deps.deliveries.put(key, {
      ...record,
      status,
      updatedAt: Date.now(),
      ...(lastError !== undefined ? { lastError } : {}),
    });
    this.deps.metrics.deliveries.inc({ outcome: status === 'dead' ? 'dead-lettered' : status });
  }

  private async serialised(activityId: string): Promise<Buffer | undefined> {
    const cached = this.bodies.get(activityId);
    if (cached) return cached;
    const activity = await this.deps.store.get(activityId);
    if (!activity) return undefined;
    const bytes = Buffer.from(JSON.stringify(activity), 'utf8');
    this.bodies.set(activityId, bytes);
    while (this.bodies.size > 256) this.bodies.delete(this.bodies.keys().next().value as string);
    return bytes;
  }
}

export function openBroadcastStore(provider: StoreProvider): Promise<Store<PendingBroadcast>> {
  return provider.open<PendingBroadcast>(BROADCAST_STORE, { indexes: ['postedAt'] });
}

async function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}
