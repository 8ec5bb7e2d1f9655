import { createHashlink, decodeMultibaseMultihash, multibaseMultihash, SHA2_256 } from '@anchor/common/encoding';
import { badRequest } from '@anchor/common/errors';
import type { ProviderBatchOp, Store, StoreProvider } from '@anchor/common/storage';

export const CAS_STORE = 'cas';

/** Media types of what the node keeps in its CAS. */
export const CAS_MEDIA = {
  /** Sidetree batch files: gzip of JCS JSON. */
  batchFile: 'application/gzip',
  /** Witnessed anchor linksets: JCS JSON. */
  linkset: 'application/json',
  unknown: 'application/octet-stream',
} as const;

interface CasRecord {
  /** base64 of the bytes. */
  content: string;
  mediaType: string;
  size: number;
}

/**
 * The node's content-addressed store (orb's local CAS, store `cas`): bytes under their resource hash
 * (`uEi…`, the multibase SHA2-256 multihash), served at `GET /cas/<hash>`. Writes are idempotent: the same
 * bytes always land under the same key, so a write repeated after a crash changes nothing.
 */
export class CasStore {
  private constructor(
    private readonly store: Store<CasRecord>,
    /** `<external>/cas`. */
    readonly casBase: string,
  ) {}

  static async open(provider: StoreProvider, casBase: string): Promise<CasStore> {
    return new CasStore(await provider.open<CasRecord>(CAS_STORE), casBase);
  }

  static hashOf(content: Uint8Array): string {
    return multibaseMultihash(content);
  }

  /** `<casBase>/<hash>`: where this node serves the content. */
  linkFor(hash: string): string {
    return `${this.casBase}/${hash}`;
  }

  /** `hl:<hash>:<metadata>` naming this node's copy, as Orb's CAS writes return. */
  hashlinkFor(content: Uint8Array): string {
    return createHashlink(content, [this.linkFor(CasStore.hashOf(content))]);
  }

  /** A write as one operation of a provider-level atomic batch. */
  writeOp(content: Uint8Array, mediaType: string): ProviderBatchOp {
    return { store: CAS_STORE, op: 'put', key: CasStore.hashOf(content), value: recordOf(content, mediaType) };
  }

  async write(content: Uint8Array, mediaType: string): Promise<string> {
    const hash = CasStore.hashOf(content);
    await this.store.put(hash, recordOf(content, mediaType));
    return hash;
  }

  async writeAll(files: ReadonlyArray<{ content: Uint8Array; mediaType: string }>): Promise<void> {
    if (files.length === 0) return;
    await this.store.batch(
      files.map(({ content, mediaType }) => ({
        op: 'put',
        key: CasStore.hashOf(content),
        value: recordOf(content, mediaType),
      })),
    );
  }

  async read(hash: string): Promise<{ content: Buffer; mediaType: string } | undefined> {
    const record = await this.store.get(hash);
    return record ? { content: Buffer.from(record.content, 'base64'), mediaType: record.mediaType } : undefined;
  }

  async has(hash: string): Promise<boolean> {
    return (await this.store.get(hash)) !== undefined;
  }
}

function recordOf(content: Uint8Array, mediaType: string): CasRecord {
  return { content: Buffer.from(content).toString('base64'), mediaType, size: content.length };
}

/** Checks that `hash` is a resource hash this CAS can hold (a multibase SHA2-256 multihash). */
export function checkResourceHash(hash: string): string {
  try {
    const { code, digest } = decodeMultibaseMultihash(hash);
    if (!hash.startsWith('u') || code !== SHA2_256 || digest.length !== 32)
      throw new TypeError('not a multibase (u) SHA2-256 multihash');
  } catch (error) {
    throw badRequest(`'${hash}' is not a content hash: ${(error as Error).message}`);
  }
  return hash;
}
