/**
 * Crypto hot paths, single-threaded: hashing a canonicalised JSON document (every Sidetree hash, anchor
 * and log payload), and signing / verifying through KeyPair over node:crypto. Targets sit a little under
 * the raw node:crypto figures measured on this machine (ecosystem.md §1.4), so a miss means the wrapper
 * costs too much, not that OpenSSL is slow.
 */
import { KeyPair, type ParsedJws, parseJws, signJws, verifyJws } from '@anchor/common/crypto';
import { canonicalize, sha256 } from '@anchor/common/encoding';
import { atLeast, rate, report, summary } from './lib/report.js';

const SECTION = 'crypto';

/** A ~1 KB JSON document shaped like a Sidetree create request. */
function kilobyteDocument(): Record<string, unknown> {
  const document = {
    type: 'create',
    suffixData: {
      deltaHash: 'EiCfDWRnYlcD9EGA3d_5Z1AHu-iYqMbJ9nfiqdz5S8VDbg',
      recoveryCommitment: 'EiBfOZdMtU6OBw8Pk879QtZ-2J-9FbbjSZyoaA_bqD4zhA',
    },
    delta: {
      updateCommitment: 'EiDKIkwqO69IPG3pOlHkdb86nYt0aNxSHZu2r-bhEznjdA',
      patches: [
        {
          action: 'replace',
          document: {
            publicKeys: [
              {
                id: 'publicKeyModel1Id',
                type: 'EcdsaSecp256k1VerificationKey2019',
                publicKeyJwk: {
                  kty: 'EC',
                  crv: 'secp256k1',
                  x: 'tXSKB_rubXS7sCjXqupVJEzTcW3MsjmEvq1YpXn96Zg',
                  y: 'dOicXqbjFxoGJ-K0-GJ1kHYJqic_D_OMuUwkQ7Ol6nk',
                },
                purposes: ['authentication', 'keyAgreement'],
              },
            ],
            services: [{ id: 'service1Id', type: 'service1Type', serviceEndpoint: 'http://www.service1.com' }],
          },
        },
      ],
    },
    anchorOrigin: 'https://orb.domain1.com/services/orb',
    note: '',
  };
  const missing = 1024 - canonicalize(document).length;
  document.note = 'x'.repeat(Math.max(0, missing));
  return document;
}

async function main(): Promise<void> {
  const document = kilobyteDocument();
  report(
    SECTION,
    `JCS + SHA-256 of a ${canonicalize(document).length}-byte JSON document`,
    await rate(() => sha256(canonicalize(document))),
    'ops/s',
    atLeast(20_000),
  );

  const message = Buffer.from(
    '{"deltaHash":"EiCpjN47f0Mq6xDNUKn4hSegMEqoDS_rpQ29Wy1V73VDbw","updateKey":{"crv":"Ed25519","kty":"OKP","x":"M8EwJz0zblSYH1a1ef0UUrxA7RdoxloPKPU5cYsab1o"}}',
  );
  const ed25519 = KeyPair.generate('Ed25519');
  const ed25519Signature = ed25519.sign(message);
  report(SECTION, 'Ed25519 sign (KeyPair.sign)', await rate(() => ed25519.sign(message)), 'ops/s', atLeast(20_000));
  report(
    SECTION,
    'Ed25519 verify (KeyPair.verify)',
    await rate(() => ed25519.verify(message, ed25519Signature)),
    'ops/s',
    atLeast(7_500),
  );

  for (const [type, target] of [
    ['P-256', 9_000],
    ['secp256k1', 1_800],
  ] as const) {
    const key = KeyPair.generate(type);
    const signature = key.sign(message);
    report(
      SECTION,
      `${key.jwsAlgorithm} verify (KeyPair.verify)`,
      await rate(() => key.verify(message, signature)),
      'ops/s',
      atLeast(target),
    );
  }

  // The protocol path: a compact JWS verified against a JWK as it arrives in a request (cached import).
  for (const [type, target] of [
    ['Ed25519', 6_000],
    ['P-256', 7_000],
    ['secp256k1', 1_600],
  ] as const) {
    const key = KeyPair.generate(type);
    const jws = signJws(message, key, { kid: 'did:example:123#key-1' });
    const jwk = key.publicJwk();
    let parsed: ParsedJws | undefined;
    report(
      SECTION,
      `${key.jwsAlgorithm} verifyJws (parse + JWK from cache + verify)`,
      await rate(() => (parsed = verifyJws(jws, { ...jwk }))),
      'ops/s',
      atLeast(target),
    );
    if (!parsed || !parseJws(jws).payload.equals(message)) throw new Error('verification produced the wrong payload');
  }
  report(SECTION, 'EdDSA signJws', await rate(() => signJws(message, ed25519)), 'ops/s', atLeast(15_000));

  summary();
}

await main();
