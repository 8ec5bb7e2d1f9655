import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { KeyPair } from '@anchor/common/crypto';
import { syncDirectory } from '@anchor/common/files';
import { getLogger } from '@anchor/common/log';
import type { LogKeyType } from '@anchor/common/vct';

const log = getLogger('vct-key');

/**
 * Loads the log's signing key from a PKCS#8 PEM file, or generates one and persists it there when the file
 * does not exist yet (first start). The new file is written under a temporary name, fsynced and then
 * hard-linked into place, so a crash never leaves half a key, and two processes starting at once on the
 * same directory cannot both create one: the second link fails and that process reads the winner's key.
 */
export async function loadOrCreateLogKey(
  file: string,
  wantedType: LogKeyType | undefined,
): Promise<{ key: KeyPair; created: boolean }> {
  const existing = await readKeyFile(file);
  if (existing) return { key: checkType(existing, file, wantedType), created: false };

  const key = KeyPair.generate(wantedType ?? 'Ed25519');
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(partial, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(key.privateKeyPem(), 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(partial, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const winner = await readKeyFile(file);
    if (!winner) throw new Error(`log key file ${file} appeared but cannot be read`, { cause: error });
    return { key: checkType(winner, file, wantedType), created: false };
  } finally {
    await unlink(partial).catch(() => undefined);
  }
  await syncDirectory(dirname(file));
  log.info('generated a new log signing key', { file, type: key.type });
  return { key, created: true };
}

async function readKeyFile(file: string): Promise<KeyPair | undefined> {
  let pem: string;
  try {
    pem = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the log key file ${file}: ${(error as Error).message}`, { cause: error });
  }
  let key: KeyPair;
  try {
    key = KeyPair.fromPem(pem);
  } catch (error) {
    throw new Error(`the log key file ${file} does not hold a PEM private key`, { cause: error });
  }
  if (!key.isPrivate)
    throw new Error(`the log key file ${file} holds a public key; the log needs the private key (PKCS#8 PEM)`);
  return key;
}

function checkType(key: KeyPair, file: string, wantedType: LogKeyType | undefined): KeyPair {
  if (key.type !== 'Ed25519' && key.type !== 'P-256')
    throw new Error(`the log key in ${file} is ${key.type}; a log key must be Ed25519 or P-256`);
  if (wantedType !== undefined && key.type !== wantedType) {
    throw new Error(
      `the log key in ${file} is ${key.type}, but --key-type asks for ${wantedType}; remove the flag or point --key-file elsewhere`,
    );
  }
  return key;
}

/** Makes the new directory entry itself durable (a file's fsync does not cover its name). */
