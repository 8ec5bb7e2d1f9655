import { formatHashlink } from '@anchor/common/encoding';
import { badRequest, errorMessage } from '@anchor/common/errors';
import type { Logger } from '@anchor/common/log';
import { queryPages, type Store, type StoreProvider } from '@anchor/common/storage';
import type { ActivityStore } from '../activitypub/activity-store.js';
import type { HandlingContext } from '../activitypub/inbox.js';
import { announcedItems } from '../activitypub/activity-effects.js';
import type { Outbox } from '../activitypub/outbox.js';
import {
  PUBLIC,
  anchorEvent,
  derivedActivityId,
  hostOf,
  readAnchorEvent,
  type StoredActivity,
} from '../activitypub/vocabulary.js';
import type { CasStore } from '../cas/cas-store.js';
import type { AnchorEvent } from '../anchor-model/anchor-event.js';
import type { AnchorRecord } from '../anchor-model/anchor-records.js';

export const INTAKE_STORE = 'anchor-intake';

/** A remote anchor this node was told about and handed to its observer; acknowledged once processed. */
export interface AnchorIntake {
  anchorHash: string;
  /** The hashlink as announced. */
  hashlink: string;
  /** Who told us (the Create's or Announce's actor). */
  from: string;
  /** The activity that carried it. */
  via: string;
  /** Re-announce to my followers once processed (a Create received in the inbox, not one read by catch-up or an Announce). */
  announce: boolean;
  status: 'pending' | 'acknowledged' | 'rejected';
  receivedAt: number;
}

export interface AnchorIntakeDeps {
  store: ActivityStore;
  intakes: Store<AnchorIntake>;
  outbox: Outbox;
  cas: CasStore;
  submit: (event: AnchorEvent) => Promise<void>;
  anchorRecord: (anchorHash: string) => Promise<AnchorRecord | undefined>;
  serviceId: string;
  serviceEndpoint: string;
  followersIri: string;
  log: Logger;
}

/**
 * Anchors from other nodes (orb.md §2.1 "[F] inbox Create", §3.3 Create / Announce): a Create or Announce
 * from a service this node follows hands each AnchorEvent to the observer (which fetches what is not
 * embedded from the hashlink's links and the sender's `/cas` with signed GETs, verifies every hash and
 * proof and processes unprocessed parents first). Once the observer has processed it, the node
 * acknowledges: a Like back to the sender and to the anchor's origin, whose result is this node's own
 * hashlink of the anchor, and — for a Create received in the inbox — an Announce to its own followers
 * (excluding the sender). The intake record makes this survive restarts; replies have derived ids.
 */
export class AnchorIntakeService {
  private constructor(private readonly deps: AnchorIntakeDeps) {}

  static async open(provider: StoreProvider, deps: Omit<AnchorIntakeDeps, 'intakes'>): Promise<AnchorIntakeService> {
    return new AnchorIntakeService({
      ...deps,
      intakes: await provider.open<AnchorIntake>(INTAKE_STORE, { indexes: [['status', 'receivedAt']] }),
    });
  }

  /** Inbox handler of Create. */
  readonly onCreate = async (create: StoredActivity, context: HandlingContext): Promise<void> => {
    await this.checkSender(create);
    const event = readAnchorEvent(create.object);
    await this.take(event, create, context.source === 'inbox' && create.actor !== this.deps.serviceId);
  };

  /** Inbox handler of Announce: every valid AnchorEvent it lists (invalid ones are skipped), each also shared. */
  readonly onAnnounce = async (announce: StoredActivity): Promise<void> => {
    await this.checkSender(announce);
    for (const item of announcedItems(announce)) {
      let event: ReturnType<typeof readAnchorEvent>;
      try {
        event = readAnchorEvent(item);
      } catch (error) {
        this.deps.log.warn('announced item skipped', { announce: announce.id, err: errorMessage(error) });
        continue;
      }
      await this.deps.store.addRef('share', event.anchorHash, announce.id, 'Announce');
      await this.take(event, announce, false);
    }
  };

  /** Called when the observer processed an anchor (in this process); the sweep covers the rest. */
  async processed(anchorHash: string): Promise<void> {
    const intake = await this.deps.intakes.get(anchorHash);
    if (intake?.status === 'pending') await this.acknowledge(intake);
  }

  /**
   * An anchor of a followee this node is about to process by another way than an activity (catch-up through
   * the followee's export): recorded as a pending intake, so it is acknowledged (Like) once processed.
   */
  async expect(anchor: { anchorHash: string; hashlink: string }, from: string, via: string): Promise<void> {
    await this.deps.intakes.insert(anchor.anchorHash, {
      ...anchor,
      from,
      via,
      announce: false,
      status: 'pending',
      receivedAt: Date.now(),
    });
  }

  /** Acknowledges every pending intake whose anchor the observer has finished with (at start and periodically). */
  async sweep(): Promise<void> {
    for await (const items of queryPages(this.deps.intakes, {
      where: { status: 'pending' },
      orderBy: { field: 'receivedAt' },
      limit: 500,
    })) {
      for (const { value } of items) {
        try {
          await this.acknowledge(value);
        } catch (error) {
          this.deps.log.warn('could not acknowledge a received anchor; will retry', {
            anchorHash: value.anchorHash,
            err: errorMessage(error),
          });
        }
      }
    }
  }

  /** Only anchors from services this node follows are taken (and this node's own, read back by catch-up). */
  private async checkSender(activity: StoredActivity): Promise<void> {
    if (activity.actor === this.deps.serviceId) return;
    if (!(await this.deps.store.hasRef('following', this.deps.serviceId, activity.actor))) {
      throw badRequest(`${activity.type} from ${activity.actor}, which this service does not follow`);
    }
  }

  private async take(
    event: { hashlink: string; anchorHash: string; linkset?: Record<string, unknown> },
    activity: StoredActivity,
    announce: boolean,
  ): Promise<void> {
    const { anchorHash, hashlink } = event;
    const processed = async () => (await this.deps.anchorRecord(anchorHash))?.status === 'processed';
    // A Create in the inbox owes its Announce however the anchor got here first: catch-up reads the followee's
    // export every sync interval, so it often processes an anchor before its Create is delivered (orb.md §3.3:
    // Orb skips the duplicate, and a follower of this node never hears of the anchor; node README).
    if (await processed()) {
      if (announce) await this.announce(anchorHash, hashlink, activity.actor, await this.linkset(anchorHash));
      return;
    }
    const own = activity.actor === this.deps.serviceId;
    const taken = await this.deps.intakes.insert(anchorHash, {
      anchorHash,
      hashlink,
      from: activity.actor,
      via: activity.id,
      announce,
      status: own ? 'acknowledged' : 'pending',
      receivedAt: Date.now(),
    });
    if (!taken && announce) {
      const pending = await this.deps.intakes.get(anchorHash);
      if (pending && !pending.announce) await this.deps.intakes.put(anchorHash, { ...pending, announce: true });
      // Processed meanwhile: its acknowledgement may have read the intake before the flag was set.
      if (await processed()) {
        await this.announce(anchorHash, hashlink, activity.actor, await this.linkset(anchorHash));
        return;
      }
    }
    const source = senderBase(activity.actor);
    await this.deps.submit({
      hashlink,
      ...(event.linkset ? { linkset: event.linkset } : {}),
      attributedTo: activity.actor,
      ...(source ? { sources: [source] } : {}),
    });
  }

  /** The Announce of a processed anchor to this node's followers, but not to `from`, who sent it (derived id: once). */
  private async announce(
    anchorHash: string,
    hashlink: string,
    from: string,
    linkset: Record<string, unknown> | undefined,
  ): Promise<void> {
    if (linkset === undefined) return;
    await this.deps.outbox.post(
      {
        id: derivedActivityId(this.deps.serviceEndpoint, `Announce:${anchorHash}`),
        type: 'Announce',
        to: [this.deps.followersIri, PUBLIC],
        object: { type: 'OrderedCollection', totalItems: 1, orderedItems: [anchorEvent(hashlink, linkset)] },
      },
      { exclude: [from] },
    );
  }

  private async acknowledge(intake: AnchorIntake): Promise<void> {
    const record = await this.deps.anchorRecord(intake.anchorHash);
    if (record === undefined) return;
    if (record.status === 'rejected') {
      await this.deps.intakes.put(intake.anchorHash, { ...intake, status: 'rejected' });
      return;
    }
    const localHashlink = formatHashlink({
      resourceHash: intake.anchorHash,
      links: [this.deps.cas.linkFor(intake.anchorHash)],
    });
    const linkset = await this.linkset(intake.anchorHash);
    if (intake.announce) await this.announce(intake.anchorHash, intake.hashlink, intake.from, linkset);
    const origin = authorOf(linkset);
    const { serviceId, serviceEndpoint } = this.deps;
    const likeTo = [...new Set([intake.from, ...(origin ? [origin] : [])])].filter((uri) => uri !== serviceId);
    if (likeTo.length > 0) {
      await this.deps.outbox.post({
        id: derivedActivityId(serviceEndpoint, `Like:${intake.anchorHash}`),
        type: 'Like',
        to: likeTo,
        object: anchorEvent(intake.hashlink),
        result: anchorEvent(localHashlink),
      });
    }
    await this.deps.intakes.put(intake.anchorHash, { ...intake, status: 'acknowledged' });
  }

  private async linkset(anchorHash: string): Promise<Record<string, unknown> | undefined> {
    const stored = await this.deps.cas.read(anchorHash);
    if (!stored) return undefined;
    try {
      return JSON.parse(stored.content.toString('utf8')) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
}

/** The anchor's origin: the author of its (single) link. */
function authorOf(linkset: Record<string, unknown> | undefined): string | undefined {
  const links = linkset?.linkset;
  const author = Array.isArray(links) ? (links[0] as { author?: unknown } | undefined)?.author : undefined;
  const href = Array.isArray(author) ? (author[0] as { href?: unknown } | undefined)?.href : undefined;
  return typeof href === 'string' ? href : undefined;
}

/** Where the sender serves its CAS: the base URL of its service (for a did:web service, https of its host). */
function senderBase(actor: string): string | undefined {
  if (actor.startsWith('did:web:')) {
    const host = hostOf(actor);
    return host === undefined ? undefined : `https://${host}`;
  }
  try {
    return new URL(actor).origin;
  } catch {
    return undefined;
  }
}
