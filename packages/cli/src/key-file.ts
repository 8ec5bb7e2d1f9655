import { randomBytes } from 'node:crypto';
import { chmod, open, readFile, rename, stat } from 'node:fs/promises';
import { KeyPair, type Jwk } from '@anchor/common/crypto';
import { commitmentOf } from '@anchor/sidetree';
import { CliError } from './errors.js';

/**
 * The keys that control a DID, kept by `anchor did create` and used by update / recover / deactivate. Written
 * with mode 0600, by rename (a crash leaves the old file or the new one, never half of one). A key that an
 * operation is about to commit to is saved as `pending` before the operation is posted, so that a lost
 * answer never loses the only copy of the key the DID now commits to; the next command picks whichever key
 * matches the DID's published commitment.
 */
export interface DidKeys {
  did: string;
  didSuffix: string;
  nodeUrl: string;
  /** Private JWKs. */
  updateKey: Jwk;
  recoveryKey: Jwk;
  /** Document keys by id: private JWKs, or for a key held in the kms its public JWK with `kid` = the kms key URL. */
  documentKeys: Record<string, Jwk>;
  pending?: {
    updateKey?: Jwk;
    recoveryKey?: Jwk;
    documentKeys?: Record<string, Jwk>;
    /** The create request, until a node has accepted it (`did create` again sends it again). */
    create?: Record<string, unknown>;
  };
}

export async function readKeyFile(path: string): Promise<DidKeys> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(
      `cannot read the key file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let keys: DidKeys;
  try {
    keys = JSON.parse(text) as DidKeys;
  } catch {
    throw new CliError(`the key file ${path} is not JSON`);
  }
  if (typeof keys.didSuffix !== 'string' || typeof keys.updateKey !== 'object' || typeof keys.recoveryKey !== 'object')
    throw new CliError(`the key file ${path} is not a key file written by anchor did create`);
  return keys;
}

/**
 * The key file of a create that no node has confirmed (to send again), or undefined when there is no file.
 * Any other existing file is refused: it holds the keys of another DID.
 */
export async function readPendingCreate(path: string): Promise<DidKeys | undefined> {
  try {
    await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  }
  let keys: DidKeys;
  try {
    keys = await readKeyFile(path);
  } catch (error) {
    throw new CliError(`the key file ${path} exists; choose another --key-file (${(error as Error).message})`);
  }
  if (keys.pending?.create === undefined)
    throw new CliError(`the key file ${path} exists; choose another --key-file (it holds the keys of another DID)`);
  return keys;
}

/** Writes the key file (0600). `exclusive` refuses to replace an existing file. */
export async function writeKeyFile(path: string, keys: DidKeys, exclusive = false): Promise<void> {
  const text = `${JSON.stringify(keys, null, 2)}\n`;
  if (exclusive) {
    let handle;
    try {
      handle = await open(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new CliError(`the key file ${path} exists; choose another --key-file (it holds the keys of another DID)`);
      throw new CliError(`cannot write the key file ${path}: ${(error as Error).message}`);
    }
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return;
  }
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** Of the saved key and the pending one, the one whose commitment the DID publishes now. */
export function keyForCommitment(current: Jwk, pending: Jwk | undefined, commitment: unknown): KeyPair {
  for (const candidate of pending === undefined ? [current] : [current, pending]) {
    const key = KeyPair.fromJwk(candidate);
    if (typeof commitment !== 'string' || commitmentOf(key.publicJwk()) === commitment) return key;
  }
  throw new CliError(
    'no key in the key file matches the commitment the DID publishes: the file belongs to another DID or state',
  );
}
