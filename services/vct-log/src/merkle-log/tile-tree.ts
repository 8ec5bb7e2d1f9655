import { internal } from '@anchor/common/errors';
import {
  consistencyRanges,
  EMPTY_TREE_ROOT,
  foldPerfectParts,
  HASH_SIZE,
  inclusionRanges,
  MerkleTree,
  perfectParts,
  type NodeRef,
  type SubtreeRange,
} from '@anchor/common/merkle';
import type { ProviderBatchOp } from '@anchor/common/storage';
import { TILE_HEIGHT, TILE_WIDTH } from '@anchor/common/tlog';
import { indexKey, LEAF_HASH_CHUNK, type LogStores } from './log-records.js';

/** Level-0 tiles per leaf-hash chunk (a chunk holds 1,024 leaf hashes, a tile 256). */
const TILES_PER_CHUNK = LEAF_HASH_CHUNK / TILE_WIDTH;
/** Tiles kept decoded for proofs: 30-40 KiB each once expanded (measured ~39 MiB of buffers when full). */
export const TILE_CACHE_SIZE = 1024;

/** Key of the hash tile `index` at `level` (1 and up; level 0 is the leaf-hash chunks). */
export function tileKey(level: number, index: number): string {
  return `${String(level).padStart(2, '0')}.${indexKey(index)}`;
}

/**
 * Key of a full level-0 tile's inner nodes (heights 1 to 8, 255 hashes): what a proof would otherwise rehash
 * from the tile's 256 leaves on every cache miss (about 0.2 ms), stored once when the tile completes.
 */
export function innerKey(index: number): string {
  return `inner.${indexKey(index)}`;
}

/** A tile's nodes: the complete ones of its width, expanded to its inner levels on first use. */
interface CachedTile {
  width: number;
  nodes: Buffer;
  tree?: MerkleTree;
}

/** A growable run of hashes: the unfinished (rightmost) tile of one level. */
class Edge {
  bytes = Buffer.allocUnsafe(TILE_WIDTH * HASH_SIZE);
  count = 0;
  constructor(
    /** Node index (at this level's height) of the first hash held. */
    public first: number,
  ) {}
  push(hash: Uint8Array): void {
    if ((this.count + 1) * HASH_SIZE > this.bytes.length) {
      const grown = Buffer.allocUnsafe(this.bytes.length * 2);
      this.bytes.copy(grown, 0, 0, this.count * HASH_SIZE);
      this.bytes = grown;
    }
    this.bytes.set(hash, this.count++ * HASH_SIZE);
  }
  packed(): Buffer {
    return Buffer.from(this.bytes.subarray(0, this.count * HASH_SIZE));
  }
}

/**
 * The log's RFC 6962 tree kept as C2SP hash tiles in the store: level 0 is the leaf-hash chunks, level L ≥ 1
 * the `<alias>.tiles` records of the nodes at height 8·L. In memory only the right edge (the one unfinished
 * tile per level, O(log n)) and a bounded cache of tiles, so neither start-up nor memory grows with the log.
 *
 * The edge alone gives the root (every perfect subtree of the right edge lies in the unfinished tile of its
 * level), and start-up reads exactly those tiles. Any perfect subtree a proof needs is one stored tile's
 * node or the root of an aligned run inside one tile. Nodes never change once complete, so a tile written
 * past the head by a batch cut short is harmless: only the nodes a committed size covers are ever read.
 */
export class TileTree {
  #size = 0;
  /** edges[0]: leaf hashes from the current chunk's start; edges[L]: the unfinished tile at level L. */
  #edges: Edge[] = [new Edge(0)];
  /** Chunks and tiles completed since the last commit (written with it). */
  #completed: Array<{ level: number | 'inner'; index: number; bytes: Buffer }> = [];
  readonly #cache = new Map<string, CachedTile>();

  constructor(
    private readonly stores: LogStores,
    private readonly alias: string,
  ) {}

  get size(): number {
    return this.#size;
  }

  /**
   * Reads the right edge of the tree of `size` leaves from the store (one chunk and one tile per level) and
   * returns its root, or undefined when a needed chunk or tile is missing or short (a log written before
   * tiles were stored, or damaged tiles: `rebuild` then makes them from the leaf hashes).
   */
  async load(size: number): Promise<Buffer | undefined> {
    this.#completed = [];
    const chunk = Math.floor(size / LEAF_HASH_CHUNK);
    const edges: Edge[] = [new Edge(chunk * LEAF_HASH_CHUNK)];
    const leafCount = size - chunk * LEAF_HASH_CHUNK;
    if (leafCount > 0) {
      const record = await this.stores.leafHashes.get(indexKey(chunk));
      const bytes = record ? Buffer.from(record.hashes, 'base64') : Buffer.alloc(0);
      if (bytes.length < leafCount * HASH_SIZE) return undefined;
      for (let i = 0; i < leafCount; i++) edges[0]!.push(bytes.subarray(i * HASH_SIZE, (i + 1) * HASH_SIZE));
    }
    const wanted: Array<{ level: number; index: number; width: number }> = [];
    for (let level = 1; Math.floor(size / TILE_WIDTH ** level) > 0; level++) {
      const nodes = Math.floor(size / TILE_WIDTH ** level);
      const index = Math.floor(nodes / TILE_WIDTH);
      wanted.push({ level, index, width: nodes - index * TILE_WIDTH });
    }
    const records = await this.stores.tiles.getMany(wanted.map(({ level, index }) => tileKey(level, index)));
    for (const [i, { level, index, width }] of wanted.entries()) {
      const edge = new Edge(index * TILE_WIDTH);
      if (width > 0) {
        const bytes = records[i] ? Buffer.from(records[i].hashes, 'base64') : Buffer.alloc(0);
        if (bytes.length < width * HASH_SIZE) return undefined;
        for (let n = 0; n < width; n++) edge.push(bytes.subarray(n * HASH_SIZE, (n + 1) * HASH_SIZE));
      }
      edges[level] = edge;
    }
    this.#edges = edges;
    this.#size = size;
    return this.root();
  }

  /**
   * Makes every tile of levels ≥ 1 for the tree of `size` leaves from the stored leaf hashes (one pass, once:
   * a log stored before tiles were) and returns their writes; `visit` sees each slice of leaf hashes on the way.
   */
  async rebuild(
    size: number,
    visit: (from: number, packed: Buffer, innerOps: ProviderBatchOp[]) => Promise<void>,
  ): Promise<ProviderBatchOp[]> {
    const SLICE = 256 * LEAF_HASH_CHUNK;
    const level1: Buffer[] = [];
    for (let from = 0; from < size; from += SLICE) {
      const packed = await readLeafHashes(this.stores, from, Math.min(size, from + SLICE), this.alias);
      const innerOps: ProviderBatchOp[] = [];
      for (let at = 0; (at + TILE_WIDTH) * HASH_SIZE <= packed.length; at += TILE_WIDTH) {
        const inner = innerNodes(packed.subarray(at * HASH_SIZE, (at + TILE_WIDTH) * HASH_SIZE));
        level1.push(inner.subarray(inner.length - HASH_SIZE));
        innerOps.push(this.#innerOp((from + at) / TILE_WIDTH, inner));
      }
      await visit(from, packed, innerOps);
    }
    let nodes = Buffer.concat(level1);
    const ops: ProviderBatchOp[] = [];
    for (let level = 1; nodes.length > 0; level++) {
      const above: Buffer[] = [];
      for (let index = 0; index * TILE_WIDTH * HASH_SIZE < nodes.length; index++) {
        const bytes = nodes.subarray(index * TILE_WIDTH * HASH_SIZE, (index + 1) * TILE_WIDTH * HASH_SIZE);
        ops.push({
          store: this.stores.names.tiles,
          op: 'put',
          key: tileKey(level, index),
          value: { hashes: bytes.toString('base64') },
        });
        if (bytes.length === TILE_WIDTH * HASH_SIZE) above.push(tileRoot(bytes));
      }
      nodes = Buffer.concat(above);
    }
    return ops;
  }

  /** Appends a leaf hash (uncommitted until the ops of `commitOps` are written). */
  append(hash: Uint8Array): void {
    this.#push(0, hash);
  }

  /** Root of the whole tree (committed and appended), from the edge. */
  root(): Buffer {
    if (this.#size === 0) return Buffer.from(EMPTY_TREE_ROOT);
    return foldPerfectParts(perfectParts({ start: 0, size: this.#size }).map((node) => this.#edgeNode(node)));
  }

  /** The writes that make the appended leaves durable: completed chunks and tiles, and each level's edge. */
  commitOps(): ProviderBatchOp[] {
    const ops: ProviderBatchOp[] = [];
    const put = (level: number | 'inner', index: number, bytes: Buffer) =>
      ops.push(
        level === 'inner'
          ? this.#innerOp(index, bytes)
          : level === 0
            ? {
                store: this.stores.names.leafHashes,
                op: 'put',
                key: indexKey(index),
                value: { hashes: bytes.toString('base64') },
              }
            : {
                store: this.stores.names.tiles,
                op: 'put',
                key: tileKey(level, index),
                value: { hashes: bytes.toString('base64') },
              },
      );
    for (const { level, index, bytes } of this.#completed) put(level, index, bytes);
    this.#edges.forEach((edge, level) => {
      if (edge.count > 0) put(level, edge.first / (level === 0 ? LEAF_HASH_CHUNK : TILE_WIDTH), edge.packed());
    });
    return ops;
  }

  /** After the commit ops are durable. */
  committed(): void {
    this.#completed = [];
  }

  /** Hashes of PATH(index, D[0:size]); `size` must be committed. */
  async inclusionProof(index: number, size: number): Promise<Buffer[]> {
    return this.#rangeHashes(inclusionRanges(index, size));
  }

  async consistencyProof(first: number, second: number): Promise<Buffer[]> {
    return this.#rangeHashes(consistencyRanges(first, second));
  }

  /** The first `width` nodes of tile `index` at `level` (they must be complete in the committed tree). */
  async tile(level: number, index: number, width: number): Promise<Buffer> {
    const tile = await this.#tile(level, index, width);
    return Buffer.from(tile.nodes.subarray(0, width * HASH_SIZE));
  }

  #innerOp(index: number, inner: Buffer): ProviderBatchOp {
    return {
      store: this.stores.names.tiles,
      op: 'put',
      key: innerKey(index),
      value: { hashes: inner.toString('base64') },
    };
  }

  async #rangeHashes(ranges: SubtreeRange[]): Promise<Buffer[]> {
    const hashes: Buffer[] = [];
    for (const range of ranges) {
      const parts: Buffer[] = [];
      for (const node of perfectParts(range)) parts.push(await this.#node(node));
      hashes.push(foldPerfectParts(parts));
    }
    return hashes;
  }

  /** A perfect subtree's hash from its tile: a stored node, or the root of 2^r of a tile's nodes. */
  async #node({ height, index }: NodeRef): Promise<Buffer> {
    const level = Math.floor(height / TILE_HEIGHT);
    const inner = height - level * TILE_HEIGHT;
    const span = 2 ** inner;
    const tileIndex = Math.floor((index * span) / TILE_WIDTH);
    const offset = index * span - tileIndex * TILE_WIDTH;
    const tile = await this.#tile(level, tileIndex, offset + span);
    if (inner === 0) return Buffer.from(tile.nodes.subarray(offset * HASH_SIZE, (offset + 1) * HASH_SIZE));
    tile.tree ??= MerkleTree.fromLeafHashes(tile.nodes.subarray(0, tile.width * HASH_SIZE));
    return tile.tree.nodes(inner, offset / span, 1);
  }

  /** A tile holding at least `need` nodes, from the cache or the store. */
  async #tile(level: number, index: number, need: number): Promise<CachedTile> {
    const key = `${level}/${index}`;
    const cached = this.#cache.get(key);
    if (cached && cached.width >= need) {
      this.#cache.delete(key);
      this.#cache.set(key, cached);
      return cached;
    }
    if (level === 0) {
      const chunk = Math.floor(index / TILES_PER_CHUNK);
      const [record, inner] = await Promise.all([
        this.stores.leafHashes.get(indexKey(chunk)),
        this.stores.tiles.get(innerKey(index)),
      ]);
      const bytes = record ? Buffer.from(record.hashes, 'base64') : Buffer.alloc(0);
      const offset = (index - chunk * TILES_PER_CHUNK) * TILE_WIDTH * HASH_SIZE;
      // A copy: a view would keep the whole decoded chunk (four tiles) alive in the cache.
      const nodes = Buffer.from(bytes.subarray(offset, offset + TILE_WIDTH * HASH_SIZE));
      if (nodes.length > 0) this.#remember(key, nodes, inner && Buffer.from(inner.hashes, 'base64'));
    } else {
      const record = await this.stores.tiles.get(tileKey(level, index));
      if (record) this.#remember(key, Buffer.from(record.hashes, 'base64'));
    }
    const found = this.#cache.get(key);
    if (!found || found.width < need)
      throw internal(
        `log "${this.alias}": hash tile ${level}/${index} holds fewer than the ${need} nodes needed; the data is damaged`,
      );
    return found;
  }

  /** Caches a tile; a full level-0 tile's stored inner nodes make its tree without hashing. */
  #remember(key: string, nodes: Buffer, inner?: Buffer): void {
    const tile: CachedTile = { width: nodes.length / HASH_SIZE, nodes };
    if (inner !== undefined && tile.width === TILE_WIDTH && inner.length === (TILE_WIDTH - 1) * HASH_SIZE) {
      const levels = [nodes];
      for (let at = 0, count = TILE_WIDTH / 2; count >= 1; at += count * HASH_SIZE, count /= 2)
        levels.push(inner.subarray(at, at + count * HASH_SIZE));
      tile.tree = MerkleTree.fromLevels(levels);
    }
    this.#cache.delete(key);
    this.#cache.set(key, tile);
    if (this.#cache.size > TILE_CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!);
  }

  /** A perfect subtree of the right edge, from the edge of its level. */
  #edgeNode({ height, index }: NodeRef): Buffer {
    const level = Math.floor(height / TILE_HEIGHT);
    const span = 2 ** (height - level * TILE_HEIGHT);
    const edge = this.#edges[level];
    const from = index * span - (edge?.first ?? 0);
    if (!edge || from < 0 || from + span > edge.count)
      throw internal(`log "${this.alias}": node ${height}/${index} is not on the tree's right edge`);
    const run = edge.bytes.subarray(from * HASH_SIZE, (from + span) * HASH_SIZE);
    return span === 1 ? Buffer.from(run) : tileRoot(run);
  }

  #push(level: number, hash: Uint8Array): void {
    const edge = (this.#edges[level] ??= new Edge(0));
    edge.push(hash);
    if (level === 0) this.#size++;
    // A full tile's root is the next node one level up.
    if (edge.count % TILE_WIDTH === 0) {
      const tile = edge.bytes.subarray((edge.count - TILE_WIDTH) * HASH_SIZE, edge.count * HASH_SIZE);
      if (level === 0) {
        const inner = innerNodes(tile);
        this.#completed.push({ level: 'inner', index: this.#size / TILE_WIDTH - 1, bytes: inner });
        this.#push(1, inner.subarray(inner.length - HASH_SIZE));
      } else this.#push(level + 1, tileRoot(tile));
    }
    const capacity = level === 0 ? LEAF_HASH_CHUNK : TILE_WIDTH;
    if (edge.count === capacity) {
      this.#completed.push({ level, index: edge.first / capacity, bytes: edge.packed() });
      this.#edges[level] = new Edge(edge.first + capacity);
    }
  }
}

/** A full tile's nodes above its own, heights 1 to 8 packed in that order (the last one is its root). */
function innerNodes(tile: Buffer): Buffer {
  return Buffer.concat(MerkleTree.fromLeafHashes(tile).levels().slice(1));
}

/** MTH of a run of 2^k node hashes (a full tile, or an aligned part of one). */
function tileRoot(packed: Buffer): Buffer {
  return MerkleTree.fromLeafHashes(packed).root();
}

/** Packed leaf hashes `from..to-1` from the chunk records; a missing or short chunk means damaged data. */
export async function readLeafHashes(stores: LogStores, from: number, to: number, alias: string): Promise<Buffer> {
  if (to <= from) return Buffer.alloc(0);
  const firstChunk = Math.floor(from / LEAF_HASH_CHUNK);
  const lastChunk = Math.floor((to - 1) / LEAF_HASH_CHUNK);
  const keys: string[] = [];
  for (let chunk = firstChunk; chunk <= lastChunk; chunk++) keys.push(indexKey(chunk));
  const packed = Buffer.allocUnsafe((to - from) * HASH_SIZE);
  // Chunks are fetched in slices so a million-leaf log does not hold every chunk's base64 text at once.
  const SLICE = 256;
  for (let i = 0; i < keys.length; i += SLICE) {
    const records = await stores.leafHashes.getMany(keys.slice(i, i + SLICE));
    records.forEach((record, offset) => {
      const chunk = firstChunk + i + offset;
      const chunkStart = chunk * LEAF_HASH_CHUNK;
      const needed = Math.min(to, chunkStart + LEAF_HASH_CHUNK) - chunkStart;
      const bytes = record ? Buffer.from(record.hashes, 'base64') : Buffer.alloc(0);
      if (bytes.length < needed * HASH_SIZE) {
        throw new Error(
          `log "${alias}": leaf-hash chunk ${chunk} holds ${bytes.length / HASH_SIZE} hashes, ${needed} are needed for size ${to}; the data is damaged`,
        );
      }
      const copyFrom = Math.max(from, chunkStart);
      bytes.copy(packed, (copyFrom - from) * HASH_SIZE, (copyFrom - chunkStart) * HASH_SIZE, needed * HASH_SIZE);
    });
  }
  return packed;
}
