import type { ProofSigning } from '../credentials/proof-signing.js';
import type { Profiles } from '../profiles/profiles.js';
import type { StatusLists } from './status-lists.js';

/**
 * Serves the signed list credentials: signed by the profile's key when first asked for after a change, then
 * answered from memory until the list changes again.
 */
export class StatusListPublisher {
  private readonly signed = new Map<string, { version: number; credential: Promise<Record<string, unknown>> }>();

  constructor(
    private readonly profiles: Profiles,
    private readonly lists: StatusLists,
    private readonly signing: ProofSigning,
  ) {}

  async signedList(profileName: string, listId: string): Promise<Record<string, unknown>> {
    const profile = await this.profiles.get('issuer', profileName);
    const { credential, version } = await this.lists.listCredential(profile, listId);
    const key = `${profileName}:${listId}`;
    const cached = this.signed.get(key);
    if (cached && cached.version === version) return cached.credential;
    const signing = this.signing.sign(credential, profile, {}, 'assertionMethod');
    this.signed.set(key, { version, credential: signing });
    signing.catch(() => {
      if (this.signed.get(key)?.credential === signing) this.signed.delete(key);
    });
    return signing;
  }
}
