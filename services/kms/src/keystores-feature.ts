import type { Feature } from '@anchor/common/service';
import type { KmsContext } from './kms-context.js';
import { Keystores } from './keystores/keystores.js';
import { loadMasterKey } from './keystores/master-key.js';

export interface KeystoresFeature extends Feature {
  readonly keystores: Keystores;
}

/** The master key (refused when it is not the one the database was sealed under) and the keystores at rest. */
export async function createKeystoresFeature(ctx: KmsContext): Promise<KeystoresFeature> {
  const { config } = ctx;
  const masterKey = await loadMasterKey(config.masterKey ?? {}, config.devMode ?? false, config.dataDir ?? 'data');
  const keystores = await Keystores.open(ctx.storage, masterKey);
  return { name: 'keystores', keystores };
}
