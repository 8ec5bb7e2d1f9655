import { createJsonLdContextsFeature, JsonLdContexts } from '@anchor/common/jsonld-contexts';
import { getLogger } from '@anchor/common/log';
import { serviceHandle, type ServiceDefinition, type ServiceHandle } from '@anchor/common/service';
import { createApiFeature, type ApiFeature } from './api-feature.js';
import type { VctLogContext, VctLogContextMembers } from './log-context.js';
import { createLogsFeature, type LogsFeature } from './logs-feature.js';
import { vctLogSettings, type VctLogOptions } from './log-options.js';
import { VctMetrics } from './metrics.js';
import { createPreparerFeature } from './preparer-feature.js';
import { createSequencerFeature, type SequencerFeature } from './sequencer-feature.js';
import { createWitnessFeature, type WitnessFeature } from './witness/witness-feature.js';

export type { VctLogOptions } from './log-options.js';

export interface VctLogServer extends ServiceHandle {
  /** The external base URL (WebFinger subjects are `<baseUrl>/<alias>`). */
  readonly baseUrl: string;
  /** base64 of the log id, SHA-256 of the public key. */
  readonly logId: string;
  readonly publicKey: Buffer;
  /** The note verifier key of an alias's C2SP checkpoints (`<origin>+<hash>+<key>`; Ed25519 logs only). */
  noteVerifierKey(alias: string): string;
  /** Runs one integration round now instead of waiting for the interval (tests, tools). */
  integrateNow(): Promise<void>;
  /** Asks `--witnesses` to cosign the current checkpoints now; resolves when each answered or failed (tests). */
  cosignNow(): Promise<void>;
  /** `--tiles-dir`: writes the tiles and checkpoint files now (after the round in flight); resolves when done. */
  writeTilesNow(): Promise<void>;
  /** Witness mode: the cosignature/v1 vkey (`<name>+<hash>+<base64(0x04 ‖ key)>`); undefined without `--witness-logs`. */
  readonly witnessVerifierKey: string | undefined;
}

interface VctLogParts {
  logs: LogsFeature;
  api: ApiFeature;
  sequencer: SequencerFeature;
  witness: WitnessFeature;
}

const log = getLogger('vct-server');

/** The log on the service kit: storage and key check, credential preparer, API, sequencer. */
const vctLogService: ServiceDefinition<VctLogOptions, VctLogContextMembers, VctLogParts> = {
  name: 'vct-server',
  metricsPrefix: 'vct_',
  settings: vctLogSettings,
  extend: async ({ metrics }) => ({ context: { vctMetrics: new VctMetrics(metrics) } }),
  async features(ctx: VctLogContext, add) {
    const contexts = add(
      await createJsonLdContextsFeature(await JsonLdContexts.open(ctx.storage), {
        contextsFile: ctx.config.contextsFile,
      }),
    );
    const logs = add(await createLogsFeature(ctx));
    const preparer = add(await createPreparerFeature(ctx, logs, contexts.contexts));
    // The witness's default name holds the base URL, which the API feature knows once the listener is up.
    const later: { api?: ApiFeature } = {};
    const witness = add(await createWitnessFeature(ctx, () => (later.api as ApiFeature).baseUrl));
    const api = add(createApiFeature(ctx, logs, preparer, contexts.routes, witness.addCheckpoint));
    later.api = api;
    const sequencer = add(await createSequencerFeature(ctx, logs, () => void api.afterRound()));
    return { logs, api, sequencer, witness };
  },
  started(ctx, { logs, api, witness }) {
    const { config } = ctx;
    const witnessing = witness.witness();
    log.info('vct-log started', {
      url: ctx.listener.url,
      baseUrl: api.baseUrl,
      logs: logs.logs.map((l) => l.alias),
      logId: logs.signer.logIdBase64,
      keyType: logs.signer.keyType,
      ...(logs.signer.keyType === 'Ed25519'
        ? { checkpointVerifierKeys: logs.logs.map((l) => api.checkpoints.verifierKey(l.alias)) }
        : {}),
      storage: config.storage?.type ?? 'lmdb',
      ...(api.cosigning.witnesses.length > 0 ? { witnesses: api.cosigning.witnesses.map((w) => w.url) } : {}),
      ...(witnessing ? { witnessVerifierKey: witnessing.verifierKey, witnessedOrigins: witnessing.origins } : {}),
    });
    // The head the log starts with is cosigned too, not only the ones rounds make; --tiles-dir catches up.
    void api.afterRound();
  },
};

/**
 * The transparency log service. `start()` builds and starts it (see `vctLogService`), `stop()` lets
 * in-flight requests and the integration round in progress finish, then closes the workers and the store.
 */
export function createServer(options: VctLogOptions = {}): VctLogServer {
  return serviceHandle('vct-log', vctLogService, options, (running) => ({
    get baseUrl() {
      return running('base URL').parts.api.baseUrl;
    },
    get logId() {
      return running('key').parts.logs.signer.logIdBase64;
    },
    get publicKey() {
      return Buffer.from(running('key').parts.logs.signer.publicKeyBytes);
    },
    noteVerifierKey: (alias) => running('key').parts.api.checkpoints.verifierKey(alias),
    integrateNow: () => running('sequencer').parts.sequencer.runRound(),
    cosignNow: () => running('cosigning').parts.api.cosigning.runNow(),
    writeTilesNow: async () => running('tiles-dir').parts.api.tilesDir?.runNow(),
    get witnessVerifierKey() {
      return running('witness').parts.witness.witness()?.verifierKey;
    },
  }));
}
