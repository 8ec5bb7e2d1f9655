import { kmsOptions, kmsOptionsProblem } from '@anchor/common/clients';
import { opt, type ValuesOf } from '@anchor/common/config';

/** The node's `keys` section: the anchor-credential and HTTP-signing keys, from files or from a kms. */
export const keysOptions = {
  vcSignKeyFile: opt.string({
    flag: 'vc-sign-key-file',
    help: 'PEM (PKCS#8) Ed25519 key that signs anchor credentials; generated in the data directory when absent',
  }),
  vcSignKeyId: opt.string({
    flag: 'vc-sign-key-id',
    env: ['ANCHOR_VC_SIGN_ACTIVE_KEY_ID'],
    default: 'vc-key',
    help: 'Key id of the anchor-credential key in /.well-known/did.json',
  }),
  httpSignKeyFile: opt.string({
    flag: 'http-sign-key-file',
    help: 'PEM (PKCS#8) Ed25519 key that signs outbound HTTP requests; generated in the data directory when absent',
  }),
  httpSignKeyId: opt.string({
    flag: 'http-sign-key-id',
    env: ['ANCHOR_HTTP_SIGN_ACTIVE_KEY_ID'],
    default: 'main-key',
    help: 'Key id of the HTTP signing key',
  }),
  ...kmsOptions('anchor-credential proofs and HTTP signatures'),
  kmsHttpKeyId: opt.string({
    flag: 'kms-http-key-id',
    help: 'id of the HTTP-signing key in the kms keystore when it is not the --kms-key-id key; default: --kms-key-id, or a key created on first start',
  }),
};

/** The checks that go with the section: a whole kms setting, and keys from files or from the kms, not both. */
export function keysOptionsProblem(keys: ValuesOf<typeof keysOptions>): string | undefined {
  return (
    kmsOptionsProblem(keys) ??
    (keys.kmsUrl !== undefined && (keys.vcSignKeyFile !== undefined || keys.httpSignKeyFile !== undefined)
      ? '--kms-url signs with kms keys: drop --vc-sign-key-file and --http-sign-key-file'
      : keys.kmsHttpKeyId !== undefined && keys.kmsUrl === undefined
        ? '--kms-http-key-id needs --kms-url'
        : undefined)
  );
}
