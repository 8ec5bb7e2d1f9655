import { join } from 'node:path';
import { notFound } from '@anchor/common/errors';
import type { Handler } from '@anchor/common/http';
import type { Feature } from '@anchor/common/service';
import type { VctLogContext } from '../log-context.js';
import { loadOrCreateLogKey } from '../signing/key-file.js';
import { WITNESS_STORE, Witness, type WitnessRecord } from './witness.js';

/** The witness mode (`--witness-logs`): `POST /add-checkpoint`, answered 404 for every origin without it. */
export interface WitnessFeature extends Feature {
  readonly addCheckpoint: Handler;
  /** The witness (once the listener is up: its default name holds the base URL); undefined without `--witness-logs`. */
  witness(): Witness | undefined;
}

export async function createWitnessFeature(ctx: VctLogContext, baseUrl: () => string): Promise<WitnessFeature> {
  const options = ctx.config;
  const logKeys = options.witnessLogs ?? [];
  if (logKeys.length === 0)
    return {
      name: 'witness',
      witness: () => undefined,
      addCheckpoint: () => {
        throw notFound('unknown log origin: this vct-log witnesses no log (--witness-logs)');
      },
    };
  const { key } = await loadOrCreateLogKey(
    options.witnessKeyFile ?? join(options.dataDir ?? 'data', 'witness-key.pem'),
    'Ed25519',
  );
  const { privateKey } = key;
  if (!privateKey) throw new Error('the witness key file holds no private key');
  const store = await ctx.storage.open<WitnessRecord>(WITNESS_STORE);
  let witness: Witness | undefined;
  // The default name holds the base URL, known once the listener is up: the witness is made on first use.
  const get = (): Witness =>
    (witness ??= new Witness(store, {
      name: options.witnessName ?? `${baseUrl().replace(/^[a-z]+:\/\//i, '')}/witness`,
      privateKey,
      publicKey: key.publicKeyBytes(),
      logKeys,
    }));
  return {
    name: 'witness',
    witness: get,
    addCheckpoint: (req) => get().addCheckpoint(req),
  };
}
