import { randomUUID } from 'node:crypto';
import { AppError, badRequest } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import type { MessageQueue } from '@anchor/common/mq';
import { validate } from '@anchor/common/schemas';
import { ACTIVITY, type Activity } from '../schemas/index.js';
import type { ProviderBatchOp, Store } from '@anchor/common/storage';
import type { NodeMetrics } from '../observability/node-metrics.js';
import type { ActivityStore } from './activity-store.js';
import { postedActivity } from './activity-effects.js';
import {
  ACTIVITY_CONTEXTS,
  ACTIVITY_TYPES,
  activityTypeOf,
  iriOf,
  isPublic,
  recipientsOf,
  type StoredActivity,
} from './vocabulary.js';

/** Topic of posted activities waiting to be fanned out (and of single recipients whose resolution is retried). */
export const OUTBOX_TOPIC = 'node.activity.outbox';
/** Store of posted activities not yet fanned out: re-queued at start, deleted by the fan-out. */
export const BROADCAST_STORE = 'outbox-broadcast';

export interface PendingBroadcast {
  activityId: string;
  /** Services never to deliver this activity to (the sender of an Announced anchor). */
  exclude?: string[];
  postedAt: number;
}

export interface BroadcastMessage {
  activityId: string;
  /** Set when only this one recipient is to be (re)resolved and delivered to. */
  target?: string;
}

export interface OutboxDeps {
  store: ActivityStore;
  broadcasts: Store<PendingBroadcast>;
  mq: MessageQueue;
  serviceId: string;
  serviceEndpoint: string;
  metrics: NodeMetrics;
  log: Logger;
}

/**
 * The outbox (orb.md §3.3 "Outbox", §3.4): `post` completes an activity (id under
 * `<service>/activities/`, actor, contexts, published), applies its effect on this node's collections
 * (Undo of a Follow leaves `following`, a Like enters `liked`, ...), stores it with its outbox references
 * and a pending fan-out in one atomic write, queues the fan-out and returns — delivery happens on the
 * queue. Posting an activity whose id is already stored is a no-op that returns the stored one, so
 * activities with derived ids (the Create of an anchor, the Accept of an Offer) can be posted again safely.
 */
export class Outbox {
  constructor(private readonly deps: OutboxDeps) {}

  async post(input: Activity, options: { exclude?: readonly string[] } = {}): Promise<StoredActivity> {
    const started = performance.now();
    const activity = this.complete(input);
    const existing = await this.deps.store.get(activity.id);
    if (existing) return existing;
    const undone =
      activity.type === 'Undo'
        ? await this.deps.store.getIfIn('outbox', this.deps.serviceId, iriOf(activity.object, 'the object of an Undo'))
        : undefined;
    // An Undo goes where the undone activity went.
    if (activity.to === undefined && undone?.to !== undefined) activity.to = undone.to;

    const ops: ProviderBatchOp[] = [
      { ...this.deps.store.putActivityOp(activity), op: 'insert' },
      this.deps.store.addRefOp('outbox', this.deps.serviceId, activity.id, activity.type),
      ...(isPublic(activity)
        ? [this.deps.store.addRefOp('public-outbox', this.deps.serviceId, activity.id, activity.type)]
        : []),
      // Its effect on this node's collections (orb.md §3.3, outbox column); 400 for a malformed activity.
      ...postedActivity(activity, this.deps.serviceId, undone).map((change) => this.deps.store.changeOp(change)),
      {
        store: BROADCAST_STORE,
        op: 'put',
        key: activity.id,
        value: {
          activityId: activity.id,
          postedAt: Date.now(),
          ...(options.exclude && options.exclude.length > 0 ? { exclude: [...options.exclude] } : {}),
        } satisfies PendingBroadcast,
      },
    ];
    try {
      await this.deps.store.write(ops);
    } catch (error) {
      // The same id was posted meanwhile (another instance, a concurrent retry): that one stands.
      if (error instanceof AppError && error.code === 'conflict')
        return (await this.deps.store.get(activity.id)) ?? activity;
      throw error;
    }
    this.deps.metrics.outboxActivities.inc({ type: activity.type });
    this.deps.metrics.outboxPostSeconds.observe({ type: activity.type }, (performance.now() - started) / 1000);
    try {
      await this.deps.mq.publish<BroadcastMessage>(OUTBOX_TOPIC, { activityId: activity.id });
    } catch (error) {
      // Stored with its pending fan-out: the next sweep or start queues it again.
      this.deps.log.warn('could not queue the fan-out of an activity; it will be retried', {
        id: activity.id,
        err: (error as Error).message,
      });
    }
    return activity;
  }

  /** The activity as it will be stored: validated, with id, actor, contexts, published and default recipients. */
  private complete(input: Activity): StoredActivity {
    validate(ACTIVITY, input, { what: 'activity' });
    const type = activityTypeOf(input);
    if (!(ACTIVITY_TYPES as readonly string[]).includes(type))
      throw badRequest(`unsupported activity type ${type} (supported: ${ACTIVITY_TYPES.join(', ')})`);
    if (input.actor !== undefined && input.actor !== this.deps.serviceId)
      throw badRequest(`the actor of an outbox activity must be this service (${this.deps.serviceId})`);
    const prefix = `${this.deps.serviceEndpoint}/activities/`;
    if (input.id !== undefined && !(input.id.startsWith(prefix) && input.id.length > prefix.length))
      throw badRequest(`an outbox activity id must start with ${prefix}`);
    const activity: StoredActivity = {
      '@context': input['@context'] ?? ACTIVITY_CONTEXTS,
      ...input,
      id: input.id ?? `${prefix}${randomUUID()}`,
      type,
      actor: this.deps.serviceId,
      published: input.published ?? new Date().toISOString(),
    };
    const to = defaultRecipients(activity);
    if (to !== undefined) activity.to = to;
    return activity;
  }
}

/** Who an activity goes to when the poster did not say: the followed or invited service, or the undone activity's audience. */
function defaultRecipients(activity: StoredActivity): string[] | undefined {
  if (recipientsOf(activity).length > 0) return undefined;
  if (activity.type === 'Follow' && typeof activity.object === 'string') return [activity.object];
  if (activity.type === 'Invite' && typeof activity.target === 'string') return [activity.target];
  return undefined;
}
