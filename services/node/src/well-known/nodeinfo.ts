import { PROJECT_REPOSITORY, PROJECT_VERSION } from '@anchor/common/version';
import type { Logger } from '@anchor/common/log';
import type { FederationView } from './federation-view.js';
import { NODEINFO_SCHEMA } from './well-known-documents.js';

export type NodeInfoVersion = keyof typeof NODEINFO_SCHEMA;

/** The software name NodeInfo announces: the schemas require `^[a-z0-9-]+$`, which "Orb" fails. */
export const SOFTWARE_NAME = 'anchor-node';

/** What NodeInfo counts (spec NodeInfo: Create activities in the outbox are posts, Like activities comments). */
export interface NodeInfoUsage {
  localPosts: number;
  localComments: number;
}

export interface NodeInfoDocument {
  version: NodeInfoVersion;
  software: { name: string; version: string; repository?: string };
  protocols: ['activitypub'];
  services: { inbound: []; outbound: [] };
  openRegistrations: false;
  usage: { users: { total: 1 }; localPosts?: number; localComments?: number };
  metadata: Record<string, never>;
}

/**
 * A NodeInfo document (2.0 or 2.1: 2.1 adds software.repository). One user (the node's service), no
 * registrations, ActivityPub. The counts are left out until known: the schemas make them optional, and an
 * absent count says "unknown" where a zero would claim an empty outbox.
 */
export function nodeInfoDocument(version: NodeInfoVersion, usage: NodeInfoUsage | undefined): NodeInfoDocument {
  return {
    version,
    software: {
      name: SOFTWARE_NAME,
      version: PROJECT_VERSION,
      ...(version === '2.1' ? { repository: PROJECT_REPOSITORY } : {}),
    },
    protocols: ['activitypub'],
    services: { inbound: [], outbound: [] },
    openRegistrations: false,
    usage: { users: { total: 1 }, ...(usage ?? {}) },
    metadata: {},
  };
}

/** The media type NodeInfo asks servers to use: JSON with the schema as profile. */
export function nodeInfoContentType(version: NodeInfoVersion): string {
  return `application/json; profile="${NODEINFO_SCHEMA[version]}#"`;
}

/**
 * The outbox counts NodeInfo shows, recomputed every `--nodeinfo-refresh-interval` (as in Orb) rather
 * than on every request: counting an outbox is a query per type, and NodeInfo is polled by crawlers.
 */
export class NodeInfoUsageCounter {
  private current: NodeInfoUsage | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly federation: FederationView,
    private readonly refreshIntervalMs: number,
    private readonly log: Logger,
  ) {}

  get usage(): NodeInfoUsage | undefined {
    return this.current;
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.refreshIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Recounts; on failure keeps the last counts (stale numbers beat an error page for a statistics document). */
  async refresh(): Promise<void> {
    try {
      const [localPosts, localComments] = await Promise.all([
        this.federation.outboxCount('Create'),
        this.federation.outboxCount('Like'),
      ]);
      this.current = { localPosts, localComments };
    } catch (error) {
      this.log.warn('NodeInfo: counting the outbox failed; keeping the previous counts', {
        error: (error as Error).message,
      });
    }
  }
}
