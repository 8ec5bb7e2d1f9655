import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '@anchor/common/files';
import type { TreeHead } from '../merkle-log/transparency-log.js';

/** The largest tree head of one alias that this log ever signed and served. */
export interface HighWaterHead {
  size: number;
  /** base64 root hash. */
  root: string;
  timestamp: number;
}

type HighWaterFile = ReadonlyMap<string, HighWaterHead>;

/**
 * The newest tree head each alias ever signed, kept in a small file outside the database (ADR 0014): a
 * database restored to an older backup brings back a smaller tree, but not this file, so the log can see
 * that it would go backwards and refuse, instead of breaking every monitor that saw the larger head (orb
 * issue 1316). The file is written before a signed head leaves the process.
 */
export class TreeHighWater {
  #heads: HighWaterFile;
  /** Serialises file writes; each one writes the whole, newest map. */
  #writing: Promise<void> = Promise.resolve();

  private constructor(
    readonly file: string,
    heads: HighWaterFile,
  ) {
    this.#heads = heads;
  }

  static async open(file: string): Promise<TreeHighWater> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new TreeHighWater(file, new Map());
      throw new Error(`cannot read the tree high-water file ${file}: ${(error as Error).message}`, { cause: error });
    }
    return new TreeHighWater(file, parseHighWater(text, file));
  }

  get(alias: string): HighWaterHead | undefined {
    return this.#heads.get(alias);
  }

  /** Records `head` when it is larger than the mark; resolves once that is on disk. */
  raise(alias: string, head: TreeHead): Promise<void> {
    const current = this.#heads.get(alias);
    if (current !== undefined && current.size >= head.size) return Promise.resolve();
    return this.reset(alias, head);
  }

  /** Sets the mark to `head` whatever it was (the operator accepted a rollback). */
  reset(alias: string, head: TreeHead): Promise<void> {
    this.#heads = new Map(this.#heads).set(alias, toHighWater(head));
    return this.#persist();
  }

  #persist(): Promise<void> {
    const write = this.#writing.then(() =>
      writeFileAtomic(this.file, `${JSON.stringify(Object.fromEntries(this.#heads), null, 2)}\n`),
    );
    // A failed write fails its caller; the next one writes the whole map again.
    this.#writing = write.catch(() => undefined);
    return write;
  }
}

/**
 * Why `head` may not be served as this alias's tree (it is smaller than, or forks from, a head the log
 * already signed), or undefined when it may.
 */
export function rollbackProblem(alias: string, mark: HighWaterHead | undefined, head: TreeHead): string | undefined {
  if (mark === undefined) return undefined;
  if (head.size < mark.size)
    return `log "${alias}": the database holds a tree of ${head.size} entries, but this log already signed a tree head of ${mark.size} entries (root ${mark.root}); the database was restored from an older backup or lost writes`;
  if (head.size === mark.size && head.root.toString('base64') !== mark.root)
    return `log "${alias}": the database's tree of ${head.size} entries has root ${head.root.toString('base64')}, but this log already signed root ${mark.root} for that size`;
  return undefined;
}

function toHighWater(head: TreeHead): HighWaterHead {
  return { size: head.size, root: head.root.toString('base64'), timestamp: head.timestamp };
}

function parseHighWater(text: string, file: string): HighWaterFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`the tree high-water file ${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`the tree high-water file ${file} must hold an object of alias to tree head`);
  const heads = new Map<string, HighWaterHead>();
  for (const [alias, value] of Object.entries(parsed)) {
    const head = value as Partial<HighWaterHead> | null;
    if (
      head === null ||
      typeof head !== 'object' ||
      !Number.isSafeInteger(head.size) ||
      (head.size as number) < 0 ||
      typeof head.root !== 'string' ||
      !Number.isSafeInteger(head.timestamp)
    )
      throw new Error(`the tree high-water file ${file} has a malformed head for "${alias}"`);
    heads.set(alias, { size: head.size as number, root: head.root, timestamp: head.timestamp as number });
  }
  return heads;
}
