/**
 * Transparency-log formats of C2SP (signed notes, checkpoints, tlog-tiles paths and entry bundles,
 * cosignatures and the tlog-witness add-checkpoint exchange), as Go's golang.org/x/mod/sumdb/note and
 * sumdb/tlog and transparency-dev's formats read them. Pure but for Ed25519 from node:crypto: no I/O.
 */
export { type Checkpoint, formatCheckpoint, parseCheckpoint } from './checkpoint.js';
export {
  ALG_COSIGNATURE_V1,
  type Cosignature,
  type Cosigner,
  cosignCheckpoint,
  cosignatureKeyHash,
  cosignatureMessage,
  cosignatureTimestamp,
  cosignatureVerifierKey,
  parseCosignatureLines,
  parseCosignatureVerifierKey,
  verifyCosignatures,
} from './cosignature.js';
export {
  type NoteSign,
  type NoteSignature,
  type NoteVerifier,
  type OpenedNote,
  type ParsedNote,
  ed25519NoteSign,
  ed25519Verify,
  ed25519VerifierKey,
  formatSignatureLine,
  isValidKeyName,
  noteKeyHash,
  openNote,
  parseNote,
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
export {
  type AddCheckpointRequest,
  MAX_PROOF_LINES,
  TLOG_SIZE_MEDIA_TYPE,
  type WitnessDecision,
  type WitnessedCheckpoint,
  checkAddCheckpoint,
  formatAddCheckpoint,
  formatTreeSize,
  parseAddCheckpoint,
  parseTreeSize,
} from './witness.js';
