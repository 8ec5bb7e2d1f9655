import { serviceOptionsOf } from '@anchor/common/service';
import { kmsOptions, kmsOptionsProblem, kmsSettingsOf } from '@anchor/common/clients';
import { defineConfig, opt, type ConfigOf } from '@anchor/common/config';
import {
  allowedPeerNetworksOption,
  hostUrlOption,
  serviceChecks,
  serviceTailOptions,
  storageOptions,
} from '@anchor/common/config/shared';
import { readCaCertificates } from '@anchor/common/http-client';
import { contextsFileOption } from '@anchor/common/jsonld-contexts';
import { PROJECT_VERSION } from '@anchor/common/version';
import { isValidKeyName, parseVerifierKey } from '@anchor/common/tlog';
import { workerThreadsOption } from '@anchor/common/workers';
import { issuerItemProblem, logItemProblem, buildLogDefinitions } from './log-definitions.js';
import type { VctLogOptions } from './log-options.js';
import { checkTilesDir } from './api/tiles-dir.js';
import { parseWitnessEndpoint } from './witness/cosigning.js';

/**
 * Every flag of `vct-log`: each flag's first env name is `VCT_<FLAG>` (the config module's env rule); the
 * generic names trustbloc/vct or the spec use follow as aliases. `--help` prints them; the README's option table is generated from this spec and a
 * test checks it lists every flag.
 */
export const VCT_LOG_CONFIG = defineConfig({
  program: 'vct-log',
  version: PROJECT_VERSION,
  description:
    'RFC 6962 transparency log of verifiable credentials, wire-compatible with trustbloc/vct: several logs ' +
    'per deployment, each under /<alias>/v1/..., signed by one Ed25519 or P-256 key.',
  envPrefix: 'VCT',
  options: {
    hostUrl: hostUrlOption({ short: 'a', env: ['VCT_API_HOST'], default: '0.0.0.0:5678' }),
    baseUrl: opt.url({
      flag: 'base-url',
      protocols: ['http', 'https'],
      help: 'external URL of the service; WebFinger subjects are <base-url>/<alias> (default http://<host-url>, with a wildcard host shown as localhost)',
    }),
    dataDir: opt.string({
      flag: 'data-dir',
      default: 'data',
      help: 'directory of the LMDB database and of the generated signing key',
    }),
    logs: opt.list({
      flag: 'logs',
      short: 'l',
      default: ['main:rw'],
      validateItem: logItemProblem,
      help: 'logs to serve, alias:permissions with permissions r, w or rw (an @endpoint suffix is accepted and ignored: every log is embedded)',
    }),
    issuers: opt.list({
      flag: 'issuers',
      validateItem: issuerItemProblem,
      help: 'issuer allow-list entries alias@did; add-vc on an alias with a list rejects other issuers with 400',
    }),
    ...storageOptions(),
    keyFile: opt.string({
      flag: 'key-file',
      help: 'PKCS#8 PEM file of the log signing key; created with a new key on first start when missing (default <data-dir>/vct-log-key.pem); replicas sharing a database must share this file',
    }),
    treeHighWaterFile: opt.string({
      flag: 'tree-high-water-file',
      help: 'file keeping the newest tree head each log signed, on a volume a database restore does not roll back (default <data-dir>/tree-high-water.json; see docs/adr/0014)',
    }),
    allowTreeRollback: opt.bool({
      flag: 'allow-tree-rollback',
      help: 'start even when the database holds a smaller tree than a head this log already signed (after restoring an older backup); monitors that saw the larger head report a rollback',
    }),
    keyType: opt.enum(['Ed25519', 'P-256'] as const, {
      flag: 'key-type',
      help: 'type of a generated key: Ed25519 (default; envelope EDDSA/ED25519) or P-256 (envelope ECDSA/ECDSAP256IEEEP1363); must match an existing key file when given',
    }),
    kmsType: opt.enum(['local', 'web'] as const, {
      flag: 'kms-type',
      help: "trustbloc/vct's spelling: local (a key file, as --key-file) or web (the kms at --kms-url); default web when --kms-url is given, else local",
    }),
    ...kmsOptions('the STH and add-vc signatures', {
      url: ['VCT_KMS_ENDPOINT'],
      keyId: ['VCT_LOG_SIGN_ACTIVE_KEY_ID'],
    }),
    readTokens: opt.list({
      flag: 'api-read-token',
      secret: true,
      help: 'bearer tokens accepted for reads (GET); none means reads are open',
    }),
    writeTokens: opt.list({
      flag: 'api-write-token',
      secret: true,
      help: 'bearer tokens accepted for writes (add-vc, POST /loglevels); none means writes are open',
    }),
    integrationInterval: opt.duration({
      flag: 'integration-interval',
      default: '250ms',
      min: '10ms',
      max: '1m',
      help: 'how often accepted entries are integrated into the trees (and a new signed tree head produced)',
    }),
    integrationBatchSize: opt.int({
      flag: 'integration-batch-size',
      default: 2000,
      min: 1,
      max: 10_000,
      help: 'most entries written in one atomic integration batch',
    }),
    maxRootAge: opt.duration({
      flag: 'max-root-age',
      default: '1h',
      min: '1s',
      help: 'a log without new entries still gets a freshly timestamped tree head this often',
    }),
    maxGetEntries: opt.int({
      flag: 'max-get-entries',
      default: 1000,
      min: 1,
      max: 10_000,
      help: 'most entries one get-entries answer holds; a longer range is cut short and clients continue from the last entry received',
    }),
    tlogOrigin: opt.string({
      flag: 'tlog-origin',
      help: "origin line of each log's C2SP checkpoint (GET /<alias>/checkpoint), {alias} replaced by the alias; it is also the note key name (no spaces, no '+') and must hold {alias} when several logs are served (default <base-url without its scheme>/{alias}, as example.com/vct/main)",
    }),
    tilesDir: opt.string({
      flag: 'tiles-dir',
      help: "write each log's C2SP tlog-tiles (checkpoint, hash tiles, entry bundles) as files under <tiles-dir>/<alias>/ after every integration round, for a plain web server to serve; caught up from the store at start; created when missing, and a path the log cannot write stops the start (none: no files are written)",
    }),
    witnesses: opt.list({
      flag: 'witnesses',
      validateItem: witnessItemProblem,
      help: "witnesses asked to cosign every new checkpoint of every log (C2SP tlog-witness), each <cosignature vkey>@<submission URL>, as a witness's vct-log prints its witnessVerifierKey (name+hash+base64(0x04 key)); their lines are appended to GET /<alias>/checkpoint; a failing witness is logged and skipped",
    }),
    witnessLogs: opt.list({
      flag: 'witness-logs',
      validateItem: verifierKeyProblem,
      help: "witness mode (C2SP tlog-witness, POST /add-checkpoint): the note verifier keys of the logs this vct-log cosigns, <origin>+<hash>+<key> as a vct-log prints its checkpointVerifierKeys at start (the key name is the log's origin); none: every origin is unknown (404)",
    }),
    witnessKey: opt.string({
      flag: 'witness-key',
      help: 'PKCS#8 PEM file of the Ed25519 key the witness cosigns with (cosignature/v1); created on first start when missing (default <data-dir>/witness-key.pem)',
    }),
    witnessName: opt.string({
      flag: 'witness-name',
      help: "the witness's key name in its cosignature lines, a schema-less URL without spaces or '+' (default <base-url without its scheme>/witness)",
    }),
    sequencerLease: opt.duration({
      flag: 'sequencer-lease',
      default: '10s',
      min: '1s',
      help: 'with mongodb: how long the replica that integrates holds its lease without renewing it',
    }),
    devMode: opt.bool({
      flag: 'dev-mode',
      help: 'resolve did:web over plain http for every host, and at private, link-local and loopback addresses (otherwise https to public addresses only, and loopback when the log itself is on loopback)',
    }),
    ...allowedPeerNetworksOption(),
    allowUndefinedTerms: opt.list({
      flag: 'allow-undefined-terms',
      default: ['href', 'rel', 'AnchorLink'],
      help: 'JSON-LD terms a credential may use without its contexts defining them (dropped from the entry, as trustbloc/vct does); "any" accepts every undefined term',
    }),
    canonicalizeWorkers: workerThreadsOption(
      'canonicalize-workers',
      'worker threads that parse, canonicalise (JSON-LD) and sign add-vc credentials; auto = one per core; 0 does it on the HTTP thread',
    ),
    contextsFile: contextsFileOption(),
    didCacheTtl: opt.duration({
      flag: 'did-cache-ttl',
      default: '5m',
      help: 'how long resolved DID documents (proof verification keys) are reused',
    }),
    ...serviceTailOptions({
      caCertsFor: 'the kms, and the did:web documents of add-vc proofs',
      log: { example: 'vct-sequencer=debug:info' },
      metricsHost: {
        short: 'm',
        help: 'serve /metrics on this separate listener (as trustbloc/vct) instead of the API listener',
      },
    }),
  },
  checks: [
    (c) => kmsOptionsProblem(c),
    (c) =>
      c.kmsType === 'web' && c.kmsUrl === undefined
        ? '--kms-type web needs --kms-url'
        : c.kmsType === 'local' && c.kmsUrl !== undefined
          ? '--kms-type local contradicts --kms-url'
          : c.kmsUrl !== undefined && c.keyFile !== undefined
            ? '--kms-url signs with a kms key: drop --key-file'
            : undefined,
    // One origin for several logs would give them all the same checkpoint name; the origin is also the
    // note key's name, which holds no space and no '+'.
    (c) =>
      c.tlogOrigin === undefined
        ? undefined
        : !isValidKeyName(c.tlogOrigin.replaceAll('{alias}', 'a'))
          ? `--tlog-origin ${JSON.stringify(c.tlogOrigin)} is no note key name: no spaces and no '+'`
          : !c.tlogOrigin.includes('{alias}') && c.logs.length > 1
            ? `--tlog-origin ${JSON.stringify(c.tlogOrigin)} names one log, but --logs serves ${c.logs.length}: put {alias} in it`
            : undefined,
    (c) =>
      c.witnessName !== undefined && !isValidKeyName(c.witnessName)
        ? `--witness-name ${JSON.stringify(c.witnessName)} is no note key name: no spaces and no '+'`
        : undefined,
    ...serviceChecks('VCT'),
  ],
});

export type VctLogFlags = ConfigOf<typeof VCT_LOG_CONFIG>;

/** The server's options from the parsed flags, and the `@endpoint` suffixes of `--logs` that are ignored. */
export function vctLogOptionsFrom(flags: VctLogFlags): { options: VctLogOptions; ignoredEndpoints: string[] } {
  const { logs, ignoredEndpoints } = buildLogDefinitions(flags.logs, flags.issuers);
  const undefinedTerms = flags.allowUndefinedTerms.some((term) => term.toLowerCase() === 'any')
    ? 'any'
    : flags.allowUndefinedTerms;
  const options: VctLogOptions = {
    ...serviceOptionsOf(flags),
    baseUrl: flags.baseUrl,
    logs,
    keyFile: flags.keyFile,
    treeHighWaterFile: flags.treeHighWaterFile,
    allowTreeRollback: flags.allowTreeRollback,
    keyType: flags.keyType,
    kms: kmsSettingsOf(flags),
    readTokens: flags.readTokens,
    writeTokens: flags.writeTokens,
    integrationIntervalMs: flags.integrationInterval,
    integrationBatchSize: flags.integrationBatchSize,
    maxRootAgeMs: flags.maxRootAge,
    maxGetEntries: flags.maxGetEntries,
    tlogOrigin: flags.tlogOrigin,
    tilesDir: flags.tilesDir === undefined ? undefined : checkedTilesDir(flags.tilesDir),
    witnesses: flags.witnesses,
    witnessLogs: flags.witnessLogs,
    witnessKeyFile: flags.witnessKey,
    witnessName: flags.witnessName,
    sequencerLeaseMs: flags.sequencerLease,
    devMode: flags.devMode,
    allowedPeerNetworks: flags.allowedPeerNetworks,
    allowUndefinedTerms: undefinedTerms,
    canonicalizeWorkers: flags.canonicalizeWorkers,
    didCacheTtlMs: flags.didCacheTtl,
    contextsFile: flags.contextsFile,
    caCertificates: readCaCertificates(flags.tlsCaCerts ?? []),
  };
  return { options, ignoredEndpoints };
}

/** A `--witnesses` item, or why not. */
function witnessItemProblem(item: string): string | undefined {
  try {
    parseWitnessEndpoint(item);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A note verifier key `--witness-logs` takes, or why not. */
function verifierKeyProblem(item: string): string | undefined {
  try {
    parseVerifierKey(item);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** `--tiles-dir`, made and written to once here so that a path the log cannot write is a config error. */
function checkedTilesDir(dir: string): string {
  checkTilesDir(dir);
  return dir;
}
