import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { getLogger } from '@anchor/common/log';
import type { MasterKeySource } from '../kms-options.js';

export const MASTER_KEY_BYTES = 32;
/** The file dev mode keeps its generated master key in, inside the data directory. */
export const DEV_MASTER_KEY_FILE = 'kms-master-key';

const log = getLogger('kms-master-key');

/** A start-up problem with the master key: main exits 1 with this one line. */
export class MasterKeyError extends Error {
  override readonly name = 'MasterKeyError';
}

/**
 * The master key that wraps every keystore's data key: from `--secret-lock-key-path` (32 raw bytes, or their
 * base64 / base64url, as aries' `MasterKeyFromPath` reads), from `KMS_SECRET_LOCK_KEY` (base64), or in dev mode
 * from `<data-dir>/kms-master-key`, created on first start. Without any of them the kms refuses to start: the
 * original fell back to a no-op lock, which kept keys in the clear.
 */
export async function loadMasterKey(source: MasterKeySource, devMode: boolean, dataDir: string): Promise<Buffer> {
  if (source.file !== undefined && source.base64 !== undefined)
    throw new MasterKeyError('give the master key once: --secret-lock-key-path or KMS_SECRET_LOCK_KEY, not both');
  if (source.file !== undefined) return decodeMasterKey(await readKeyFile(source.file), `the file ${source.file}`);
  if (source.base64 !== undefined) return decodeMasterKey(Buffer.from(source.base64.trim()), 'KMS_SECRET_LOCK_KEY');
  if (!devMode)
    throw new MasterKeyError(
      'no master key: give --secret-lock-key-path FILE (or KMS_SECRET_LOCK_KEY, base64 of 32 bytes); --dev-mode creates one in the data directory',
    );
  return devMasterKey(join(dataDir, DEV_MASTER_KEY_FILE));
}

async function readKeyFile(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new MasterKeyError(
      `cannot read the master key file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

/** 32 raw bytes, or base64 (either alphabet, padded or not) of 32 bytes, surrounding whitespace ignored. */
export function decodeMasterKey(content: Buffer, where: string): Buffer {
  if (content.length === MASTER_KEY_BYTES) return Buffer.from(content);
  const text = content.toString('utf8').trim();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === MASTER_KEY_BYTES) return bytes;
  }
  throw new MasterKeyError(`${where} does not hold a master key: 32 bytes, raw or in base64, expected`);
}

async function devMasterKey(file: string): Promise<Buffer> {
  try {
    return decodeMasterKey(await readFile(file), `the dev-mode master key file ${file}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const key = randomBytes(MASTER_KEY_BYTES);
  await mkdir(dirname(file), { recursive: true });
  // wx: two processes starting at once on one data directory must not each write a different key.
  try {
    await writeFile(file, `${key.toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return devMasterKey(file);
    throw new MasterKeyError(`cannot create the dev-mode master key file ${file}: ${(error as Error).message}`);
  }
  await chmod(file, 0o600);
  log.warn('dev mode: created a master key file beside the data; production needs --secret-lock-key-path', { file });
  return key;
}
