/**
 * Our side of the Digital Bazaar pair, in a process of its own as the peer is (`bench/peers/vc-peer.mjs`):
 * `@anchor/common/jsonld` signing and verifying the same credential (`bench/peers/credential.json`) under the
 * same suite, one core, contexts from the bundled set and the issuer's key from a static controller document.
 *
 *   node our-vc-process.js <Ed25519Signature2020 | eddsa-rdfc-2022> <milliseconds per figure>
 *
 * Prints one JSON line, the same fields as the peer's.
 */
import { readFileSync } from 'node:fs';
import { KeyPair } from '@anchor/common/crypto';
import { CONTEXT_URLS, controllerDocumentResolver, signDocument, verifyDocument } from '@anchor/common/jsonld';
import { sequentialRate } from './sequential-rate.js';

const [suite, msText] = process.argv.slice(2);
const ms = Number(msText ?? 3_000);
const ISSUER = 'did:example:issuer';
const KEY_ID = `${ISSUER}#key-1`;
const key = KeyPair.generate('Ed25519');
const fixture = JSON.parse(readFileSync(new URL('../../peers/credential.json', import.meta.url), 'utf8')) as {
  '@context': unknown[];
};

let credential: Record<string, unknown>;
let cryptosuite: 'eddsa-rdfc-2022' | undefined;
let verificationMethod: Record<string, unknown>;
if (suite === 'Ed25519Signature2020') {
  credential = {
    ...fixture,
    '@context': [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.ed25519Signature2020V1, ...fixture['@context']],
    issuer: ISSUER,
    issuanceDate: '2024-03-01T19:23:24Z',
  };
  verificationMethod = { type: 'Ed25519VerificationKey2020', publicKeyMultibase: key.publicKeyMultibase() };
} else if (suite === 'eddsa-rdfc-2022') {
  credential = {
    ...fixture,
    '@context': [CONTEXT_URLS.credentialsV2, ...fixture['@context']],
    issuer: ISSUER,
    validFrom: '2024-03-01T19:23:24Z',
  };
  cryptosuite = 'eddsa-rdfc-2022';
  verificationMethod = { type: 'Multikey', publicKeyMultibase: key.publicKeyMultibase() };
} else {
  throw new Error(`usage: our-vc-process.js <Ed25519Signature2020 | eddsa-rdfc-2022> <ms>; not ${suite}`);
}
const resolver = controllerDocumentResolver([
  {
    '@context': [CONTEXT_URLS.didV1, CONTEXT_URLS.ed25519Signature2020V1, CONTEXT_URLS.multikeyV1],
    id: ISSUER,
    verificationMethod: [{ id: KEY_ID, controller: ISSUER, ...verificationMethod }],
    assertionMethod: [KEY_ID],
  },
]);
const options = { key, verificationMethod: KEY_ID, ...(cryptosuite ? { cryptosuite } : {}) };
const issue = () => signDocument(credential, options);
const signed = await issue();
const verify = async () => {
  const result = await verifyDocument(signed, { resolver });
  if (!result.verified) throw new Error(`our own credential did not verify: ${JSON.stringify(result)}`);
};
await verify();

const issued = await sequentialRate(issue, ms);
const verified = await sequentialRate(verify, ms);
console.log(
  JSON.stringify({
    suite,
    issuePerSecond: issued.perSecond,
    verifyPerSecond: verified.perSecond,
    issueCpuMicros: issued.cpuMicros,
    verifyCpuMicros: verified.cpuMicros,
  }),
);
