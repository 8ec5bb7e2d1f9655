import { badRequest } from '../errors/index.js';

/**
 * C2SP checkpoints (c2sp.org/tlog-checkpoint): the text a log signs as a note, `<origin>\n<tree size>\n<base64
 * root hash>\n` and optional extension lines. The origin names the log (its first line is what a client
 * checks, besides the note signature).
 */
export interface Checkpoint {
  origin: string;
  size: number;
  /** The RFC 6962 root of the tree of `size` leaves, 32 bytes. */
  rootHash: Buffer;
  /** Lines after the root hash, without their newlines. */
  extensions: string[];
}

const SIZE = /^(0|[1-9][0-9]*)$/;

export function formatCheckpoint(checkpoint: Omit<Checkpoint, 'extensions'> & { extensions?: string[] }): string {
  const { origin, size, rootHash, extensions = [] } = checkpoint;
  if (origin === '' || /\n/.test(origin)) throw badRequest('a checkpoint origin is one non-empty line');
  if (!Number.isSafeInteger(size) || size < 0) throw badRequest(`a checkpoint tree size must be a count, not ${size}`);
  if (rootHash.length !== 32) throw badRequest(`a checkpoint root hash is 32 bytes, not ${rootHash.length}`);
  if (extensions.some((line) => line === '' || /\n/.test(line)))
    throw badRequest('checkpoint extension lines are non-empty single lines');
  return [origin, String(size), rootHash.toString('base64'), ...extensions].map((line) => `${line}\n`).join('');
}

/** Reads a checkpoint's text (a note's text, signatures removed); anything else is a `bad_request`. */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw badRequest('a checkpoint ends with a newline');
  const [origin = '', size = '', root = '', ...extensions] = text.slice(0, -1).split('\n');
  const rootHash = Buffer.from(root, 'base64');
  if (origin === '') throw badRequest('a checkpoint starts with its origin line');
  if (!SIZE.test(size) || !Number.isSafeInteger(Number(size)))
    throw badRequest(`checkpoint tree size ${JSON.stringify(size)} is not a decimal count`);
  if (rootHash.length !== 32 || rootHash.toString('base64') !== root)
    throw badRequest(`checkpoint root hash ${JSON.stringify(root)} is not the base64 of 32 bytes`);
  if (extensions.some((line) => line === '')) throw badRequest('a checkpoint has no empty lines');
  return { origin, size: Number(size), rootHash, extensions };
}
