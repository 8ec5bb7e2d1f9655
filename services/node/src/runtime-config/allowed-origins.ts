import { getLogger } from '@anchor/common/log';
import type { ConfigValues } from './config-values.js';

const SETTING = 'allowed-origins';
const ANY = '*';

/**
 * The anchor origins this node accepts on create and recover (orb.md §1.4, spec "Allowed anchor origins").
 * Stored in the database so every instance agrees; this instance sees its own updates at once and re-reads
 * the stored list after `cacheExpirationMs` to pick up other instances' updates.
 */
export class AllowedOrigins {
  private cached: { origins: readonly string[]; lookup: ReadonlySet<string>; readAt: number } | undefined;

  constructor(
    private readonly config: ConfigValues,
    private readonly cacheExpirationMs: number,
  ) {}

  /**
   * Merges the `--allowed-origins` seed into the stored list (never removing). With nothing stored and no
   * seed, stores the node's own endpoints so a bare node accepts its own clients.
   */
  async seed(fromFlags: readonly string[], defaults: readonly string[]): Promise<void> {
    const stored = await this.config.get<string[]>(SETTING);
    const base = stored ?? (fromFlags.length > 0 ? [] : [...defaults]);
    const merged = [...new Set([...base, ...fromFlags])];
    if (stored === undefined || merged.length !== stored.length) await this.config.set(SETTING, merged);
    this.remember(merged);
    getLogger('allowed-origins').info('allowed anchor origins', { origins: merged });
  }

  async list(): Promise<string[]> {
    return [...(await this.current()).origins];
  }

  /** Asked on every create and recover: answered from the cached set, without copying the list. */
  async isAllowed(origin: string): Promise<boolean> {
    const { lookup } = await this.current();
    return lookup.has(ANY) || lookup.has(origin);
  }

  /** Adds then removes (idempotent); returns the new list. */
  async update(change: { add?: readonly string[]; remove?: readonly string[] }): Promise<string[]> {
    const current = (await this.config.get<string[]>(SETTING)) ?? [];
    const removed = new Set(change.remove ?? []);
    const next = [...new Set([...current, ...(change.add ?? [])])].filter((origin) => !removed.has(origin));
    await this.config.set(SETTING, next);
    this.remember(next);
    return [...next];
  }

  private async current(): Promise<{ origins: readonly string[]; lookup: ReadonlySet<string> }> {
    if (this.cached && Date.now() - this.cached.readAt < this.cacheExpirationMs) return this.cached;
    return this.remember((await this.config.get<string[]>(SETTING)) ?? []);
  }

  private remember(origins: readonly string[]): { origins: readonly string[]; lookup: ReadonlySet<string> } {
    this.cached = { origins: [...origins], lookup: new Set(origins), readAt: Date.now() };
    return this.cached;
  }
}
