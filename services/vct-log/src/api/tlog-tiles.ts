import { internal, notFound } from '@anchor/common/errors';
import { answer, type Answer, type Handler } from '@anchor/common/http';
import { TILE_WIDTH, encodeEntryBundle, parseTilePath, tilePath, tileWidth, type TileRef } from '@anchor/common/tlog';
import type { TransparencyLog } from '../merkle-log/transparency-log.js';
import type { SignedCheckpoints } from '../signing/signed-checkpoints.js';
import type { LogRegistry } from './log-access.js';

/** A full tile never changes: any cache may keep it for good. */
export const FULL_TILE_CACHE = 'public, max-age=31536000, immutable';
/** A partial tile is replaced by a wider one as the tree grows, and the checkpoint by the next head. */
export const SHORT_CACHE = 'public, max-age=5';

/** The witnesses' cosignature lines held for a checkpoint text (`Cosigning`). */
export interface CosignatureLines {
  linesFor(alias: string, text: string): string;
}

export interface TlogTileHandlers {
  readonly checkpoint: Handler;
  readonly tile: Handler;
}

/**
 * Each alias as C2SP tlog-tiles beside its v1 API: `/<alias>/checkpoint` (a signed note of the committed
 * head) and `/<alias>/tile/...` (hash tiles and entry bundles, answered from the committed tree only, so a
 * served tile never changes; the checkpoint carries the cosignatures `--witnesses` gave it). An entry is the leaf's `leaf_input` (its Merkle leaf is H(0x00 ‖ entry)).
 */
export function tlogTileHandlers(
  logs: LogRegistry,
  checkpoints: SignedCheckpoints,
  cosigning?: CosignatureLines,
): TlogTileHandlers {
  return {
    async checkpoint(req): Promise<Answer> {
      const alias = req.params.alias ?? '';
      const { log } = logs.require(alias, 'read');
      // A replica that does not write the heads reads the newest one first (`currentHead`).
      await log.currentHead();
      const body = await servedCheckpoint(checkpoints, cosigning, log);
      return answer({ text: body, headers: { 'Cache-Control': SHORT_CACHE } });
    },
    async tile(req): Promise<Answer> {
      const alias = req.params.alias ?? '';
      const { log } = logs.require(alias, 'read');
      const path = `tile/${req.params.tile ?? ''}`;
      const tile = parseTilePath(path);
      if (!tile)
        throw notFound(`${JSON.stringify(path)} is not a tile path (tile/<L>/<N>[.p/<W>], tile/entries/<N>[.p/<W>])`);
      // A tile of a checkpoint another replica served is within this one's tree too.
      await log.currentHead();
      const headers = { 'Cache-Control': tile.width === TILE_WIDTH ? FULL_TILE_CACHE : SHORT_CACHE };
      if (tile.level !== 'entries') return answer({ bytes: await log.hashTile(tile), headers });
      const body = await entryBundle(log, tile);
      return answer({ bytes: body, headers });
    },
  };
}

/** An alias's checkpoint as served: the log's signed note of its head, then the witnesses' lines for it. */
export async function servedCheckpoint(
  checkpoints: SignedCheckpoints,
  cosigning: CosignatureLines | undefined,
  log: TransparencyLog,
): Promise<string> {
  const note = await checkpoints.note(log.alias, log.head());
  // The witnesses' cosignatures of this very checkpoint, after the log's own signature line.
  return note + (cosigning?.linesFor(log.alias, note.slice(0, note.indexOf('\n\n') + 1)) ?? '');
}

/** An entry bundle of the committed tree (`tile.level` is `entries`); beyond the tree it is `not_found`. */
export async function entryBundle(log: TransparencyLog, tile: TileRef): Promise<Buffer> {
  const path = tilePath(tile);
  const size = log.head().size;
  if (tile.width > tileWidth(size, 'entries', tile.index))
    throw notFound(`entry bundle ${path} is beyond the log's tree of size ${size}`);
  const start = tile.index * TILE_WIDTH;
  const entries = await log.entries(start, start + tile.width - 1);
  const bytes = entries.map((entry) => Buffer.from(entry.leafInput, 'utf8'));
  // add-vc takes bodies up to --request-body-limit, but a bundle's lengths are 16-bit: such a bundle
  // cannot be written (get-entries serves the entry); said, rather than blamed on the request.
  const large = bytes.findIndex((entry) => entry.length > 0xffff);
  if (large >= 0)
    throw Object.assign(
      internal(
        `entry ${start + large} is ${bytes[large]?.length} bytes, over the 65,535 of a C2SP entry bundle: ${path} cannot be served (GET /${log.alias}/v1/get-entries serves the entry)`,
      ),
      { oversizedEntry: start + large },
    );
  return encodeEntryBundle(bytes);
}

/** An `entryBundle` refusal that no retry mends: the bundle holds an entry over 64 KiB. */
export function isOversizedBundle(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'oversizedEntry' in error;
}
