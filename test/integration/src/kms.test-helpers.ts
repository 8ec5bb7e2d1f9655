/**
 * A real kms process (services/kms, dev mode: it makes its own master key in its data directory) and a
 * keystore in it, created the way an operator does: `POST /v1/keystores` through the common `KmsClient`.
 */
import { KmsClient, type CreatedKeystore } from '@anchor/common/clients';
import { KeyPair } from '@anchor/common/crypto';
import { didKeyFromKeyPair } from '@anchor/common/did';
import { serviceBin } from '@anchor/dev-env';
import { freePort, startProcess, type ServiceProcess, type TempDir } from '@anchor/testing/process';

export interface RunningKms {
  url: string;
  process: ServiceProcess;
  client: KmsClient;
}

export async function startKms(dir: TempDir): Promise<RunningKms> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const process = await startProcess(serviceBin('@anchor/kms'), {
    name: 'kms',
    args: ['--host-url', `127.0.0.1:${port}`, '--data-dir', dir.path, '--dev-mode', '--log-level', 'warning'],
    readyUrl: `${url}/healthcheck`,
    readyStatus: (status) => status === 200,
  });
  return { url, process, client: new KmsClient({ url }) };
}

/** A keystore controlled by a fresh did:key, and its capability token. */
export async function createKeystore(kms: RunningKms): Promise<CreatedKeystore & { capability: string }> {
  const controller = didKeyFromKeyPair(KeyPair.generate('Ed25519'));
  const created = await kms.client.createKeystore({ controller });
  if (created.capability === undefined) throw new Error('the kms returned no capability for the new keystore');
  return { ...created, capability: created.capability };
}

/** The value of one sample of a Prometheus counter (0 when absent), e.g. `kms_operations_total{...}`. */
export function counterValue(metrics: string, prefix: string): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}
