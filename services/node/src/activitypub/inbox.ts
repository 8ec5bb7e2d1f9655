import { badRequest, errorMessage, unavailable } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import type { Delivery, MessageQueue, Subscription } from '@anchor/common/mq';
import { INBOX_ACTIVITY } from '../schemas/index.js';
import { queryPages, type Store, type StoreProvider } from '@anchor/common/storage';
import { answer, jsonBody, type Answer, type RouteRequest } from '@anchor/common/http';
import type { DeadLetterSource } from '../dead-letters/dead-letter-source.js';
import type { NodeMetrics } from '../observability/node-metrics.js';
import { inSpan } from '@anchor/common/tracing';
import type { RefChange } from './activity-refs.js';
import type { ActivityStore } from './activity-store.js';
import { checkInboxCredentials, checkSignerIsActor } from './authorization.js';
import { handlingOutcome } from './failure-outcomes.js';
import { ACTIVITY_TYPES, activityTypeOf, hostOf, type StoredActivity } from './vocabulary.js';

/** Topic of received activities waiting to be handled (each also durable in `inbox-pending`). */
export const INBOX_TOPIC = 'node.activity.inbox';
export const INBOX_PENDING_STORE = 'inbox-pending';

export interface PendingActivity {
  activity: StoredActivity;
  receivedAt: number;
  /** Set when every attempt failed: it waits in the dead letters for an operator to replay or discard it. */
  deadLetteredAt?: number;
}

/** Where an activity came from: posted to the inbox, or read by catch-up from a peer's collection. */
export interface HandlingContext {
  source: 'inbox' | 'sync';
}

/**
 * The effect of one received activity type. Throw a non-retryable error (4xx AppError, `permanent`) to
 * refuse the activity for good, anything else to have it retried. Changes of collections it returns are
 * committed in the same atomic write that stores the activity in the inbox (an added reference that is
 * there already keeps its place), so a handled activity costs one write.
 */
export type InboxHandler = (activity: StoredActivity, context: HandlingContext) => Promise<readonly RefChange[] | void>;

export interface InboxDeps {
  store: ActivityStore;
  pending: Store<PendingActivity>;
  mq: MessageQueue;
  serviceId: string;
  maintenance: boolean;
  maxAttempts: number;
  concurrency: number;
  metrics: NodeMetrics;
  log: Logger;
}

/**
 * The inbox (orb.md §3.4 "POST inbox", "Inbox listener"): a received activity is authenticated (a bearer
 * token, or an HTTP signature whose signer is the activity's actor — an unsigned POST is refused even where
 * no token rule covers the inbox), validated, stored in `inbox-pending` and queued
 * before the 200; duplicates (an id already received) are acknowledged and ignored. The queue consumer runs
 * the type's handler and then stores the activity in the inbox collection, with the collection changes the
 * handler returned, in one atomic write — also when the handler refused it for good (then without
 * changes); retryable failures come back with the queue's backoff until the last attempt, after which the
 * activity stays pending, marked, and its message is dead-lettered: an operator replays it (handled again) or
 * discards it (stored unhandled).
 */
export class Inbox {
  private readonly handlers = new Map<string, InboxHandler>();
  private subscription: Subscription | undefined;

  private constructor(private readonly deps: InboxDeps) {}

  static async open(provider: StoreProvider, deps: Omit<InboxDeps, 'pending'>): Promise<Inbox> {
    return new Inbox({
      ...deps,
      pending: await provider.open<PendingActivity>(INBOX_PENDING_STORE, { indexes: ['receivedAt'] }),
    });
  }

  /** Registers the handler of an activity type (one per type). */
  on(type: string, handler: InboxHandler): void {
    if (this.handlers.has(type)) throw new Error(`an inbox handler for ${type} is registered already`);
    this.handlers.set(type, handler);
  }

  async start(): Promise<void> {
    this.subscription = await this.deps.mq.subscribe<{ id: string }>(
      INBOX_TOPIC,
      (delivery) => this.consume(delivery),
      { concurrency: this.deps.concurrency },
    );
    // Activities acknowledged before a crash or a restart, whose queue messages may be gone.
    for await (const items of queryPages(this.deps.pending, { orderBy: { field: 'receivedAt' } })) {
      for (const { key, value } of items)
        if (value.deadLetteredAt === undefined) await this.deps.mq.publish(INBOX_TOPIC, { id: key });
    }
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    this.subscription = undefined;
  }

  /**
   * `POST <service>/inbox`, a signed fast route of the HTTP kit (its signature is verified over the exact
   * body before this runs; express's routers, parsers and helmet cost a delivery more CPU than the check).
   */
  readonly post = async (req: RouteRequest): Promise<Answer> => {
    if (this.deps.maintenance) throw unavailable('the node is in maintenance mode');
    checkInboxCredentials(req.principal, req.authorized);
    const activity = this.checked(jsonBody(req, INBOX_ACTIVITY, 'activity'));
    checkSignerIsActor(req.principal, activity.actor);
    await this.receive(activity);
    return answer({ text: '' });
  };

  /** Durable intake of an authenticated activity; false when it was received before. */
  async receive(activity: StoredActivity): Promise<boolean> {
    if (await this.deps.store.hasRef('inbox', this.deps.serviceId, activity.id)) return false;
    if (!(await this.deps.pending.insert(activity.id, { activity, receivedAt: Date.now() }))) return false;
    await this.deps.mq.publish(INBOX_TOPIC, { id: activity.id });
    return true;
  }

  /**
   * Handles an activity and stores it in the inbox collection (catch-up calls this directly for what it
   * reads). Throws a retryable error to be called again (on the final attempt, after marking the pending
   * activity dead-lettered); returns once the activity is stored (handled, or refused for good).
   */
  async handleAndStore(activity: StoredActivity, context: HandlingContext, finalAttempt = false): Promise<void> {
    let failure: unknown;
    let changes: readonly RefChange[] = [];
    try {
      changes = (await this.handle(activity, context)) ?? [];
    } catch (error) {
      failure = error;
    }
    const outcome = handlingOutcome(failure, finalAttempt);
    if (outcome === 'retry') throw failure;
    if (outcome !== 'handled') {
      const where = { id: activity.id, type: activity.type, actor: activity.actor, err: errorMessage(failure) };
      if (outcome === 'failed') {
        this.deps.log.error('activity could not be handled on any attempt; dead-lettered', where);
        const pending = await this.deps.pending.get(activity.id);
        if (pending) await this.deps.pending.put(activity.id, { ...pending, deadLetteredAt: Date.now() });
        throw failure;
      }
      this.deps.log.warn('activity refused', where);
    }
    await this.store(activity, changes);
  }

  /** The activity into the inbox collection with its collection changes, out of `inbox-pending`: one atomic write. */
  private async store(activity: StoredActivity, changes: readonly RefChange[]): Promise<void> {
    await this.deps.store.write([
      ...(await this.deps.store.changeOpsKeepingPlace(changes)),
      this.deps.store.putActivityOp(activity),
      this.deps.store.addRefOp('inbox', this.deps.serviceId, activity.id, activity.type),
      { store: this.deps.pending.name, op: 'delete', key: activity.id },
    ]);
  }

  /** Whether an activity id is in the inbox collection. */
  received(id: string): Promise<boolean> {
    return this.deps.store.hasRef('inbox', this.deps.serviceId, id);
  }

  /** Its dead letters: activities every attempt failed to handle. */
  deadLetterSource(): DeadLetterSource {
    const pendingOf = async (body: unknown): Promise<PendingActivity | undefined> => {
      const id = (body as { id?: unknown } | null)?.id;
      return typeof id === 'string' ? this.deps.pending.get(id) : undefined;
    };
    return {
      topic: INBOX_TOPIC,
      describe: async (body) => {
        const pending = await pendingOf(body);
        if (!pending) return undefined;
        const { id, type, actor } = pending.activity;
        return { activityId: id, type, actor, receivedAt: new Date(pending.receivedAt).toISOString() };
      },
      reviving: async (body) => {
        const pending = await pendingOf(body);
        if (pending?.deadLetteredAt === undefined) return;
        const { deadLetteredAt: _deadLetteredAt, ...revived } = pending;
        await this.deps.pending.put(pending.activity.id, revived);
      },
      discarding: async (body) => {
        const pending = await pendingOf(body);
        if (!pending) return;
        this.deps.log.warn('dead-lettered activity discarded: stored unhandled', { id: pending.activity.id });
        await this.store(pending.activity, []);
      },
    };
  }

  private async consume({ body, attempt }: Delivery<{ id: string }>): Promise<void> {
    const pending = await this.deps.pending.get(body.id);
    // A dead-lettered activity is handled again only once an operator replays it.
    if (!pending || pending.deadLetteredAt !== undefined) return;
    if (await this.received(body.id)) {
      await this.deps.pending.delete(body.id);
      return;
    }
    await this.handleAndStore(pending.activity, { source: 'inbox' }, attempt >= this.deps.maxAttempts);
  }

  private async handle(activity: StoredActivity, context: HandlingContext): Promise<readonly RefChange[] | void> {
    const handler = this.handlers.get(activity.type);
    if (!handler) throw badRequest(`no handler for ${activity.type} activities`);
    const started = performance.now();
    try {
      return await inSpan(`activity ${activity.type}`, { attributes: { 'activity.id': activity.id } }, () =>
        handler(activity, context),
      );
    } finally {
      this.deps.metrics.inboxHandlerSeconds.observe(
        { type: metricLabel(activity) },
        (performance.now() - started) / 1000,
      );
    }
  }

  /** The activity with its type resolved; its id must live on its actor's host (nobody speaks for another host's ids). */
  private checked(
    input: { id: string; actor: string; type: string | string[] } & Record<string, unknown>,
  ): StoredActivity {
    const type = activityTypeOf(input);
    if (!(ACTIVITY_TYPES as readonly string[]).includes(type))
      throw badRequest(`unsupported activity type ${type} (supported: ${ACTIVITY_TYPES.join(', ')})`);
    const actorHost = hostOf(input.actor);
    if (actorHost === undefined || hostOf(input.id) !== actorHost)
      throw badRequest(`the activity id ${input.id} is not on its actor's host (${input.actor})`);
    return { ...input, type };
  }
}

/** The handler-histogram label: the spec's names (an Invite is an `InviteWitness`). */
function metricLabel(activity: StoredActivity): string {
  return activity.type === 'Invite' ? 'InviteWitness' : activity.type;
}
