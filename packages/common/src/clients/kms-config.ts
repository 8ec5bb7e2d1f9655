import { opt } from '../config/index.js';
import type { KeyType } from '../crypto/index.js';
import { KmsClient, type KmsKeystore } from './kms-client.js';
import { kmsKeyTypeFor, kmsSigner, type KmsSigner } from './kms-signer.js';

/**
 * The flags of a service that signs through the kms, the same in every service (`--kms-url`,
 * `--kms-keystore`, `--kms-key-id`, `--kms-capability`); their env names follow the service's prefix. Spread
 * them into a section of the service's config spec and add `kmsOptionsProblem` to its checks. `envAliases`:
 * earlier env names (the Go services') honoured after the derived ones.
 */
export function kmsOptions(what: string, envAliases: { url?: readonly string[]; keyId?: readonly string[] } = {}) {
  return {
    kmsUrl: opt.url({
      flag: 'kms-url',
      ...(envAliases.url ? { env: envAliases.url } : {}),
      protocols: ['http', 'https'],
      help: `kms base URL, or a keystore URL <kms>/v1/keystores/<id>; with it ${what} are made by the kms (without it, by local keys)`,
    }),
    kmsKeystore: opt.string({
      flag: 'kms-keystore',
      help: 'id of the kms keystore holding the signing keys (needed with --kms-url unless the URL names the keystore)',
    }),
    kmsKeyId: opt.string({
      flag: 'kms-key-id',
      ...(envAliases.keyId ? { env: envAliases.keyId } : {}),
      help: 'id of the signing key in the keystore; default: a key created in the keystore on first start, its id kept in the database',
    }),
    kmsCapability: opt.string({
      flag: 'kms-capability',
      secret: true,
      help: "the keystore's capability token (returned when the keystore was created), sent as Authorization: Bearer",
    }),
  };
}

export interface KmsOptionValues {
  kmsUrl?: string | undefined;
  kmsKeystore?: string | undefined;
  kmsKeyId?: string | undefined;
  kmsCapability?: string | undefined;
}

/** Where a service's signing keys are in the kms. */
export interface KmsSettings {
  /** The kms base URL. */
  url: string;
  keystore: string;
  capability: string;
  /** Absent: the service creates its key on first start and keeps the id (see `openKmsSigner`). */
  keyId?: string;
}

const KEYSTORE_URL = /^(.*?)\/v1\/keystores\/([^/?#]+)\/?$/;

/** A config check: the kms flags make sense together (or are all absent). */
export function kmsOptionsProblem(values: KmsOptionValues): string | undefined {
  const { kmsUrl, kmsKeystore, kmsKeyId, kmsCapability } = values;
  if (kmsUrl === undefined) {
    const stray = [kmsKeystore && '--kms-keystore', kmsKeyId && '--kms-key-id', kmsCapability && '--kms-capability'];
    const given = stray.filter(Boolean);
    return given.length > 0 ? `${given.join(', ')} ${given.length === 1 ? 'needs' : 'need'} --kms-url` : undefined;
  }
  const named = KEYSTORE_URL.exec(kmsUrl)?.[2];
  if (named === undefined && kmsKeystore === undefined)
    return '--kms-url needs --kms-keystore (or a keystore URL <kms>/v1/keystores/<id>)';
  if (named !== undefined && kmsKeystore !== undefined && decodeURIComponent(named) !== kmsKeystore)
    return `--kms-keystore ${kmsKeystore} differs from the keystore in --kms-url`;
  if (kmsCapability === undefined) return "--kms-url needs --kms-capability (the keystore's capability token)";
  return undefined;
}

/** The settings the kms flags give, or undefined when the service signs with local keys. */
export function kmsSettingsOf(values: KmsOptionValues): KmsSettings | undefined {
  const problem = kmsOptionsProblem(values);
  if (problem !== undefined) throw new Error(problem);
  if (values.kmsUrl === undefined) return undefined;
  const match = KEYSTORE_URL.exec(values.kmsUrl);
  const url = (match ? match[1] : values.kmsUrl)?.replace(/\/+$/, '') ?? values.kmsUrl;
  return {
    url,
    keystore: match?.[2] !== undefined ? decodeURIComponent(match[2]) : (values.kmsKeystore as string),
    capability: values.kmsCapability as string,
    ...(values.kmsKeyId !== undefined ? { keyId: values.kmsKeyId } : {}),
  };
}

export interface KmsConnection {
  client: KmsClient;
  keystore: KmsKeystore;
  close(): void;
}

export function connectKms(
  settings: KmsSettings,
  options: { timeoutMs?: number; tls?: { ca?: string | Buffer | Array<string | Buffer> } } = {},
): KmsConnection {
  const client = new KmsClient({
    url: settings.url,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
  });
  return {
    client,
    keystore: client.keystore(settings.keystore, { capability: settings.capability }),
    close: () => client.close(),
  };
}

/**
 * The signer of one of a service's keys in the kms: the configured key id, or else the id `remembered`
 * (the service's database), or else a new key of `keyType`, whose id is offered to `remember`. `remember`
 * is insert-if-absent and answers the id that is kept: replicas starting together agree on the first
 * writer's key (another's new key stays unused in the keystore).
 */
export async function openKmsSigner(
  keystore: KmsKeystore,
  options: {
    keyId?: string | undefined;
    /** The type of a key this creates. */
    keyType: KeyType;
    /** Types an existing key may have; default only `keyType`. */
    accept?: readonly KeyType[];
    remembered: () => Promise<string | undefined>;
    remember: (keyId: string) => Promise<string>;
  },
): Promise<KmsSigner> {
  let keyId = options.keyId ?? (await options.remembered());
  if (keyId === undefined) {
    const created = await keystore.createKey(kmsKeyTypeFor(options.keyType));
    keyId = await options.remember(created.keyId);
  }
  const signer = await kmsSigner(keystore, keyId);
  const accepted = options.accept ?? [options.keyType];
  if (!accepted.includes(signer.type))
    throw new Error(`kms key ${keystore.keyUrl(keyId)} is ${signer.type}; this key must be ${accepted.join(' or ')}`);
  return signer;
}
