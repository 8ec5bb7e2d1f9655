import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigError } from '@anchor/common/config';
import { errorMessage } from '@anchor/common/errors';
import { getLogger } from '@anchor/common/log';
import { TILE_WIDTH, parseCheckpoint, parseNote, tilePath, tileWidth, type TileRef } from '@anchor/common/tlog';
import { CoalescedRounds } from '../coalesced-rounds.js';
import type { TransparencyLog } from '../merkle-log/transparency-log.js';
import { entryBundle, isOversizedBundle } from './tlog-tiles.js';

const log = getLogger('vct-tiles-dir');
const FAILURE_LOG_INTERVAL_MS = 60_000;

/** What has been written of one alias: the tree size whose tiles are all on disk, and the checkpoint file. */
interface Written {
  size: number;
  checkpoint?: string;
}

export interface TilesDirOptions {
  /** The directory; each alias is written under `<dir>/<alias>/`. */
  dir: string;
  logs: readonly TransparencyLog[];
  /** The alias's checkpoint as `GET /<alias>/checkpoint` serves it (it throws for a P-256 log, which has none). */
  checkpoint: (log: TransparencyLog) => Promise<string>;
}

/**
 * `--tiles-dir`: each alias's C2SP tlog-tiles as files, so a plain web server serving the directory is the
 * read-only tlog-tiles endpoint. After each round the tiles a new head completes (full tiles, and the partial
 * ones of its size) are written, then the checkpoint, so a reader never sees a checkpoint whose tiles are
 * missing. Each file is written to a temporary name in its directory and renamed. The first round after start
 * writes every tile that is not on disk (full tiles once there never change); a failed write is logged and
 * the round is tried again next time: it never stops the log.
 */
export class TilesDir {
  private readonly written = new Map<string, Written>();
  /** The last failure logged per alias: the same one is logged again only after a minute, not every round. */
  private readonly failing = new Map<string, { message: string; at: number }>();
  /** Entry bundles holding an entry over 64 KiB, which no web server can serve either. */
  private readonly oversized = new Set<string>();
  private readonly rounds = new CoalescedRounds(async () => {
    for (const served of this.options.logs) await this.writeLog(served);
  });

  constructor(private readonly options: TilesDirOptions) {}

  /** One round now, or after the one in flight (one more if asked meanwhile); never rejects. */
  runNow(): Promise<void> {
    return this.rounds.run();
  }

  /** Lets the round in flight finish. */
  close(): Promise<void> {
    return this.rounds.close();
  }

  private async writeLog(served: TransparencyLog): Promise<void> {
    const root = join(this.options.dir, served.alias);
    const done = this.written.get(served.alias);
    let size = served.head().size;
    try {
      let checkpoint: string | undefined;
      try {
        checkpoint = await this.options.checkpoint(served);
        // The tiles of the checkpoint's own size: the tree may have grown meanwhile (rounds go on).
        size = parseCheckpoint(parseNote(checkpoint).text).size;
      } catch (error) {
        // A P-256 log has no checkpoint (C2SP notes are Ed25519): its tiles are still written.
        if (done === undefined) log.warn('no checkpoint to write', { alias: served.alias, err: errorMessage(error) });
      }
      if (done !== undefined && done.size === size && done.checkpoint === checkpoint) return;
      if (done === undefined || done.size !== size) await this.writeTiles(served, root, done?.size, size);
      if (checkpoint !== undefined && checkpoint !== done?.checkpoint)
        await writeAtomically(join(root, 'checkpoint'), checkpoint);
      this.written.set(served.alias, { size, ...(checkpoint === undefined ? {} : { checkpoint }) });
      if (this.failing.delete(served.alias)) log.info('--tiles-dir written again', { alias: served.alias, size });
    } catch (error) {
      const message = errorMessage(error);
      const last = this.failing.get(served.alias);
      if (last?.message === message && Date.now() - last.at < FAILURE_LOG_INTERVAL_MS) return;
      this.failing.set(served.alias, { message, at: Date.now() });
      log.error('could not write the tiles to --tiles-dir; trying again after each round', {
        alias: served.alias,
        dir: root,
        size,
        err: message,
      });
    }
  }

  /**
   * The tiles of a tree of `size` not written at `from` (every one not on disk when `from` is unknown): full
   * tiles completed since, and the partial tiles of `size`.
   */
  private async writeTiles(served: TransparencyLog, root: string, from: number | undefined, size: number) {
    for (const level of ['entries', ...levelsOf(size)] as const) {
      const nodes = Math.floor(size / TILE_WIDTH ** (level === 'entries' ? 0 : level));
      const before = from === undefined ? 0 : Math.floor(from / TILE_WIDTH ** (level === 'entries' ? 0 : level));
      const last = Math.ceil(nodes / TILE_WIDTH) - 1;
      for (let index = Math.floor(before / TILE_WIDTH); index <= last; index++) {
        const tile: TileRef = { level, index, width: tileWidth(size, level, index) };
        // Written at `from` already: a full tile, or the partial tile of that very width.
        if (from !== undefined && tile.width === tileWidth(from, level, index)) continue;
        const file = join(root, tilePath(tile));
        if (from === undefined && (await exists(file))) continue;
        let bytes: Buffer;
        try {
          bytes = level === 'entries' ? await entryBundle(served, tile) : await served.hashTile(tile);
        } catch (error) {
          if (!isOversizedBundle(error)) throw error;
          // Never writable (its lengths are 16-bit): left out, so the hash tiles and checkpoint go on.
          if (!this.oversized.has(file)) log.warn('an entry bundle left out', { file, err: errorMessage(error) });
          this.oversized.add(file);
          continue;
        }
        await writeAtomically(file, bytes);
      }
    }
  }
}

/** The hash-tile levels a tree of `size` has (level L exists once it has a node at height 8·L). */
function levelsOf(size: number): number[] {
  const levels: number[] = [];
  for (let level = 0; Math.floor(size / TILE_WIDTH ** level) > 0; level++) levels.push(level);
  return levels;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** A reader sees the old file or the new one, never half of one: written beside it, then renamed. */
async function writeAtomically(file: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = join(dirname(file), `.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * `--tiles-dir` at start: created when missing and written to once, so a path the log cannot write is a
 * configuration error (exit 2, as an unreadable `--tls-cacerts`), not a log line every round.
 */
export function checkTilesDir(dir: string): void {
  const probe = join(dir, `.tmp-${process.pid}-probe`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    throw new ConfigError(`--tiles-dir: cannot write to ${dir}: ${errorMessage(error)}`, { cause: error });
  }
}
