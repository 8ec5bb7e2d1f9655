import { readFile } from 'node:fs/promises';
import { KmsClient, type KmsKeyType, type KmsKeystore } from '@anchor/common/clients';
import { base64UrlPaddedDecode, base64UrlPaddedEncode } from '@anchor/common/encoding';
import { required, type CommandContext, type CommandSpec, type OptionSpec } from '../command.js';
import { CliError } from '../errors.js';

const keystoreOptions: Record<string, OptionSpec> = {
  keystore: { type: 'string', demandOption: true, describe: 'The keystore id' },
  capability: { type: 'string', describe: "The keystore's capability token (env ANCHOR_CLI_CAPABILITY)" },
};
const keyOption: Record<string, OptionSpec> = { key: { type: 'string', demandOption: true, describe: 'The key id' } };
const messageOptions: Record<string, OptionSpec> = {
  message: { type: 'string', describe: 'The message, as text' },
  'message-file': { type: 'string', describe: 'The message, read from a file' },
};

function kms({ args }: CommandContext): KmsClient {
  return new KmsClient({
    url: required(args['kmsUrl'], 'kms-url'),
    ...(args.token === undefined ? {} : { token: args.token }),
  });
}

function keystore(context: CommandContext): KmsKeystore {
  const capability = required(context.args['capability'], 'capability');
  return kms(context).keystore(required(context.args['keystore'], 'keystore'), { capability });
}

async function message({ args }: CommandContext): Promise<Buffer> {
  if (typeof args['messageFile'] === 'string') {
    try {
      return await readFile(args['messageFile']);
    } catch (error) {
      throw new CliError(
        `cannot read ${args['messageFile']}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  if (typeof args['message'] === 'string') return Buffer.from(args['message'], 'utf8');
  throw new CliError('give --message or --message-file', 2);
}

const createKeystore: CommandSpec = {
  name: 'kms keystore create',
  describe: 'Create a keystore owned by a controller DID; prints its id and capability token (shown once: keep it)',
  options: { controller: { type: 'string', demandOption: true, describe: 'The DID that owns the keystore' } },
  examples: [
    [
      'anchor kms keystore create --controller did:web:example.com --kms-url http://127.0.0.1:8075 --json > ks.json',
      'keep id and capability',
    ],
  ],
  async run(context) {
    const created = await kms(context).createKeystore({
      controller: required(context.args['controller'], 'controller'),
    });
    context.out.result(created, () =>
      [`keystore   ${created.id}`, `capability ${created.capability ?? '(none returned)'}`].join('\n'),
    );
  },
};

const createKey: CommandSpec = {
  name: 'kms key create',
  describe: 'Create a key in a keystore',
  options: {
    ...keystoreOptions,
    type: {
      type: 'string',
      default: 'ED25519',
      describe: 'Key type as the kms names it (ED25519, ECDSAP256IEEEP1363, AES256GCM, ...)',
    },
  },
  examples: [
    [
      'anchor kms key create --keystore ks1 --capability $CAP --type ED25519 --kms-url http://127.0.0.1:8075',
      'an Ed25519 signing key',
    ],
  ],
  async run(context) {
    const key = await keystore(context).createKey(String(context.args['type']) as KmsKeyType, { export: true });
    const publicKey = key.publicKey === undefined ? undefined : base64UrlPaddedEncode(key.publicKey);
    // The kms API's spelling (`keyID`), so a script reads one name from the API and from this.
    const result = { keyID: key.keyId, location: key.location, keyVersion: key.keyVersion ?? 1, publicKey };
    context.out.result(result, () => `key ${key.keyId} (version ${result.keyVersion})`);
  },
};

const exportKey: CommandSpec = {
  name: 'kms key export',
  describe: 'Show the public key of a key (base64url with padding, as the kms writes)',
  options: { ...keystoreOptions, ...keyOption },
  examples: [
    [
      'anchor kms key export --keystore ks1 --key k1 --capability $CAP --kms-url http://127.0.0.1:8075',
      'the public key',
    ],
  ],
  async run(context) {
    const exported = await keystore(context).exportPublicKey(required(context.args['key'], 'key'));
    const publicKey = base64UrlPaddedEncode(exported.publicKey);
    context.out.result({ ...exported, publicKey }, () => `${exported.keyType} ${publicKey}`);
  },
};

const sign: CommandSpec = {
  name: 'kms sign',
  describe:
    'Sign a message with a key of the keystore; prints the signature (base64url with padding, as the kms writes)',
  options: { ...keystoreOptions, ...keyOption, ...messageOptions },
  examples: [
    [
      'anchor kms sign --keystore ks1 --key k1 --capability $CAP --message hello --kms-url http://127.0.0.1:8075',
      'sign a text',
    ],
  ],
  async run(context) {
    const signed = await keystore(context).sign(required(context.args['key'], 'key'), await message(context));
    const signature = base64UrlPaddedEncode(signed.value);
    context.out.result({ signature, keyVersion: signed.keyVersion }, () => signature);
  },
};

const verify: CommandSpec = {
  name: 'kms verify',
  describe: 'Verify a signature with a key of the keystore (exit 1 when it does not verify)',
  options: {
    ...keystoreOptions,
    ...keyOption,
    ...messageOptions,
    signature: {
      type: 'string',
      demandOption: true,
      describe: 'The signature (base64url with padding, as the kms writes)',
    },
  },
  examples: [
    [
      'anchor kms verify --keystore ks1 --key k1 --capability $CAP --message hello --signature $SIG --kms-url http://127.0.0.1:8075',
      'check it',
    ],
  ],
  async run(context) {
    let signature: Buffer;
    try {
      signature = base64UrlPaddedDecode(required(context.args['signature'], 'signature'));
    } catch {
      throw new CliError('--signature is not base64url (with padding)', 2);
    }
    const verified = await keystore(context).verify(
      required(context.args['key'], 'key'),
      signature,
      await message(context),
    );
    context.out.result({ verified }, () => (verified ? 'verified' : 'NOT verified'));
    return verified ? 0 : 1;
  },
};

export const KMS_COMMANDS: CommandSpec[] = [createKeystore, createKey, exportKey, sign, verify];
