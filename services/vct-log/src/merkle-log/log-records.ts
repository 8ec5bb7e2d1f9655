import type { Store, StoreProvider } from '@anchor/common/storage';

/**
 * What a log keeps in the store (one set of stores per alias, plus shared ones). Everything a client was
 * told is derivable from these records alone; a restart reads only the tree's right edge from them.
 *
 *   <alias>.leaves       key: base64url SHA-256(N-Quads) → { timestamp, leafInput, extraData }
 *                        written once, when the credential is accepted: insert-if-absent here is the single
 *                        dedupe authority, and this is the only copy of the (large) leaf
 *   <alias>.queue        key: <accept time, 16 digits>.<identity> → { leafHash }   accepted, not yet in the tree
 *   <alias>.entries      key: leaf index, 16 digits → { identity }                 the tree's leaves in order
 *   <alias>.leaf-hashes  key: chunk number, 16 digits → { hashes: base64 of up to 1,024 packed leaf hashes }
 *                        (the tree's level 0: four C2SP level-0 hash tiles per chunk)
 *   <alias>.tiles        key: <level, 2 digits>.<tile, 16 digits> → { hashes: base64 of up to 256 packed node
 *                        hashes at height 8·level }   the C2SP hash tiles of levels 1 and up (see TileTree)
 *   <alias>.leaf-index   key: base64url leaf hash → { index }   the first index of each leaf hash (get-proof-by-hash,
 *                        dedupe at integration); '~built' → { index: size } once a log stored before this
 *                        index existed has been indexed
 *   tree-heads           key: alias → { size, root, timestamp }   the head every STH is signed from
 *   log-config           key: 'signing-key' → { type, publicKey }   the key every log of the database is signed with
 *   leases               key: 'sequencer#<version>' → lease chain link   (MongoDB) which replica integrates (StoreLease)
 *
 * Accepting writes the leaf and its queue record in one batch. Integrating moves a run of queue records
 * into the tree in ONE batch: the entries (insert-if-absent, so two sequencers can never both write an
 * index), the queue records deleted, the touched leaf-hash chunks and tiles, the leaf-index records and the new tree head. A crash leaves
 * either all of a batch or none of it.
 */
export interface LeafRecord {
  /** The leaf's timestamp (ms): the first submission's, whatever resubmissions follow. */
  timestamp: number;
  /** JCS text of the MerkleTreeLeaf. */
  leafInput: string;
  /** base64 of the JCS of the credential's proofs, or null when it had none. */
  extraData: string | null;
}

export interface QueueRecord {
  /** base64 of the Merkle leaf hash, so integration never reads the large leaf records. */
  leafHash: string;
}

export interface EntryRecord {
  /** Key of the leaf record. */
  identity: string;
}

export interface LeafHashChunk {
  hashes: string;
}

/** A hash tile of level ≥ 1 (levels' nodes never change once written; a tile only grows). */
export interface TileRecord {
  hashes: string;
}

export interface LeafIndexRecord {
  index: number;
}

/** The leaf-index record saying every leaf up to `index` is indexed (no base64url key starts with '~'). */
export const LEAF_INDEX_BUILT = '~built';

export interface TreeHeadRecord {
  size: number;
  /** base64 of the root hash. */
  root: string;
  /** When this head was produced (ms): the STH timestamp. */
  timestamp: number;
}

export interface SigningKeyRecord {
  type: string;
  publicKey: string;
}

/** Leaf hashes per chunk record: 32 KiB of hashes, small enough to rewrite the last chunk every batch. */
export const LEAF_HASH_CHUNK = 1024;

export const TREE_HEADS_STORE = 'tree-heads';
export const LOG_CONFIG_STORE = 'log-config';

/** Fixed-width decimal keys sort in index order on every adapter. */
export function indexKey(index: number): string {
  return String(index).padStart(16, '0');
}

/** Queue keys sort by accept time, then identity: integration takes the oldest first. */
export function queueKey(queued: number, identity: string): string {
  return `${indexKey(queued)}.${identity}`;
}

export function parseQueueKey(key: string): { queued: number; identity: string } {
  return { queued: Number(key.slice(0, 16)), identity: key.slice(17) };
}

export interface LogStores {
  leaves: Store<LeafRecord>;
  queue: Store<QueueRecord>;
  entries: Store<EntryRecord>;
  leafHashes: Store<LeafHashChunk>;
  tiles: Store<TileRecord>;
  leafIndex: Store<LeafIndexRecord>;
  treeHeads: Store<TreeHeadRecord>;
  names: {
    leaves: string;
    queue: string;
    entries: string;
    leafHashes: string;
    tiles: string;
    leafIndex: string;
    treeHeads: string;
  };
}

export async function openLogStores(provider: StoreProvider, alias: string): Promise<LogStores> {
  const names = {
    leaves: `${alias}.leaves`,
    queue: `${alias}.queue`,
    entries: `${alias}.entries`,
    leafHashes: `${alias}.leaf-hashes`,
    tiles: `${alias}.tiles`,
    leafIndex: `${alias}.leaf-index`,
    treeHeads: TREE_HEADS_STORE,
  };
  return {
    leaves: await provider.open<LeafRecord>(names.leaves),
    queue: await provider.open<QueueRecord>(names.queue),
    entries: await provider.open<EntryRecord>(names.entries),
    leafHashes: await provider.open<LeafHashChunk>(names.leafHashes),
    tiles: await provider.open<TileRecord>(names.tiles),
    leafIndex: await provider.open<LeafIndexRecord>(names.leafIndex),
    treeHeads: await provider.open<TreeHeadRecord>(names.treeHeads),
    names,
  };
}
