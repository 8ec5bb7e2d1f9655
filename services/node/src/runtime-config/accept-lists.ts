import type { ConfigValues } from './config-values.js';

/** The activity kinds an accept list authorises (spec "Accept-list entry"). */
export const ACCEPT_LIST_TYPES = ['follow', 'invite-witness'] as const;
export type AcceptListType = (typeof ACCEPT_LIST_TYPES)[number];

export interface AcceptListEntry {
  type: AcceptListType;
  url: string[];
}

const setting = (type: AcceptListType): string => `accept-list:${type}`;

/**
 * Who may follow this node and who may invite it to witness, when the matching auth policy is
 * `accept-list` (orb.md §3.3). Kept in the database so every instance agrees; service URIs compare exactly.
 * The federation reads it on every Follow/Invite; the system endpoint edits it.
 */
export class AcceptLists {
  constructor(private readonly config: ConfigValues) {}

  async get(type: AcceptListType): Promise<string[]> {
    return (await this.config.get<string[]>(setting(type))) ?? [];
  }

  async all(): Promise<AcceptListEntry[]> {
    return Promise.all(ACCEPT_LIST_TYPES.map(async (type) => ({ type, url: await this.get(type) })));
  }

  async includes(type: AcceptListType, serviceUri: string): Promise<boolean> {
    return (await this.get(type)).includes(serviceUri);
  }

  /** Adds then removes; idempotent. Returns the new list. */
  async update(
    type: AcceptListType,
    change: { add?: readonly string[]; remove?: readonly string[] },
  ): Promise<string[]> {
    const removed = new Set(change.remove ?? []);
    const next = [...new Set([...(await this.get(type)), ...(change.add ?? [])])].filter((uri) => !removed.has(uri));
    await this.config.set(setting(type), next);
    return next;
  }
}
