/**
 * Transparency-log formats of C2SP (signed notes, checkpoints, tlog-tiles paths and entry bundles), as Go's
 * golang.org/x/mod/sumdb/note and sumdb/tlog read them. Pure but for Ed25519 from node:crypto: no I/O.
 */
export { type Checkpoint, formatCheckpoint, parseCheckpoint } from './checkpoint.js';
export {
  type NoteSign,
  type NoteSignature,
  type NoteVerifier,
  type OpenedNote,
  ed25519NoteSign,
  ed25519VerifierKey,
  isValidKeyName,
  noteKeyHash,
  openNote,
  parseSignerKey,
  parseVerifierKey,
  signNote,
} from './signed-note.js';
export {
  TILE_HEIGHT,
  TILE_WIDTH,
  type TileRef,
  decodeEntryBundle,
  encodeEntryBundle,
  hashTile,
  parseTilePath,
  tilePath,
  tileWidth,
} from './tiles.js';
