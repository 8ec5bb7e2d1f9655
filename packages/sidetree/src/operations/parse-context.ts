import type { ProtocolParameters } from '../protocol.js';
import type { ParseMode } from './parse-mode.js';

/** What every per-type parser needs: the protocol, the strictness, and (ingest) the current Unix time. */
export interface ParseContext {
  protocol: ProtocolParameters;
  mode: ParseMode;
  now: number;
}
