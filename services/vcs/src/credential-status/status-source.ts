import { AppError, badRequest, errorMessage } from '@anchor/common/errors';
import type { FetchJson } from '@anchor/common/httpsig';
import { verifyDocument, type DocumentLoader } from '@anchor/common/jsonld';
import type { DidResolution } from '../dids/did-resolution.js';
import type { Profiles } from '../profiles/profiles.js';
import { bitAt, checkStatus, parseStatusEntry, type ParsedStatusEntry } from '../status-list-model/index.js';
import type { StatusLists } from './status-lists.js';

/** What the status check found for one entry. */
export interface EntryStatus {
  /** Why the entry cannot be checked, or why the credential is not valid (`Revoked`, `Suspended`). */
  problem?: string;
}

/**
 * The status check of one `credentialStatus` entry: the service's own lists are read straight from its store (when
 * this process issues them); anyone else's list credential is fetched over HTTP and its proof verified, then the
 * Bitstring Status List validation runs (type, purpose, the issuer being the credential's, length, index).
 */
export class StatusSource {
  constructor(
    /** Another issuer's list credential: a URL the request names, so fetched through the SSRF guard. */
    private readonly fetchList: FetchJson,
    private readonly resolution: DidResolution,
    private readonly documentLoader: DocumentLoader,
    private readonly own: { lists: StatusLists; profiles: Profiles; baseUrl: () => string } | undefined,
  ) {}

  async check(entry: unknown, credentialIssuer: string | undefined): Promise<string | undefined> {
    let parsed: ParsedStatusEntry;
    try {
      parsed = parseStatusEntry(entry);
    } catch (error) {
      return errorMessage(error);
    }
    try {
      const own = await this.ownStatus(parsed, credentialIssuer);
      const set = own ?? (await this.remoteStatus(parsed, credentialIssuer));
      if (!set) return undefined;
      return parsed.purpose === 'revocation'
        ? 'Revoked'
        : parsed.purpose === 'suspension'
          ? 'Suspended'
          : `status ${parsed.purpose} is set`;
    } catch (error) {
      if (error instanceof AppError && error.retryable) throw error;
      return `status list ${parsed.listCredential}: ${errorMessage(error)}`;
    }
  }

  /** The log timestamp of a credential this service issued and logged. */
  async receiptTimestamp(credentialId: string): Promise<number | undefined> {
    return (await this.own?.lists.issued.get(credentialId))?.receipt?.timestamp;
  }

  private async remoteStatus(entry: ParsedStatusEntry, issuer: string | undefined): Promise<boolean> {
    const data = await this.fetchList(entry.listCredential, {
      accept: 'application/json, application/ld+json',
      signal: AbortSignal.timeout(10_000),
    });
    let verified;
    try {
      verified = await verifyDocument(data, {
        resolver: this.resolution.verificationMethods,
        documentLoader: this.documentLoader,
      });
    } catch (error) {
      throw badRequest(`the status list credential does not verify: ${errorMessage(error)}`);
    }
    if (!verified.verified) {
      const failed = verified.proofs.find((proof) => !proof.verified);
      throw badRequest(
        `the status list credential does not verify: ${failed?.failure?.message ?? verified.error ?? 'no proof'}`,
      );
    }
    return !checkStatus(entry, data, issuer === undefined ? {} : { expectedIssuer: issuer }).valid;
  }

  /** Undefined when the list is not one of this service's. */
  private async ownStatus(entry: ParsedStatusEntry, issuer: string | undefined): Promise<boolean | undefined> {
    if (!this.own || entry.statusSize !== 1) return undefined;
    const prefix = `${this.own.baseUrl()}/`;
    if (!entry.listCredential.startsWith(prefix)) return undefined;
    const match = /^([^/]+)\/status\/([^/?#]+)$/.exec(entry.listCredential.slice(prefix.length));
    if (!match) return undefined;
    const [profileName, listId] = [decodeURIComponent(match[1] as string), decodeURIComponent(match[2] as string)];
    const profile = await this.own.profiles.get('issuer', profileName).catch(() => undefined);
    const list = profile && (await this.own.lists.readList(profileName, listId));
    if (!profile || !list) return undefined;
    if (issuer !== profile.did)
      throw badRequest(
        `the status list credential is issued by ${profile.did}, not by the credential's issuer ${String(issuer)}`,
      );
    if (list.purpose !== entry.purpose)
      throw badRequest(
        `the status list's purpose ${JSON.stringify(list.purpose)} is not the entry's ${JSON.stringify(entry.purpose)}`,
      );
    if (list.format !== entry.format) throw badRequest(`the status list is not a ${entry.format}Credential`);
    if (entry.index >= list.bits.length * 8)
      throw badRequest(`statusListIndex ${entry.index} is beyond the list's ${list.bits.length * 8} entries`);
    return bitAt(list.bits, entry.index);
  }
}
