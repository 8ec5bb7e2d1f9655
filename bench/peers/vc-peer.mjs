/**
 * The Digital Bazaar peer of `npm run bench -- peers`: @digitalbazaar/vc issuing and verifying the bench
 * credential (credential.json) in this process, one core, with its bundled document loader
 * (@digitalbazaar/security-document-loader: the VC, DID and Ed25519 2020 contexts and an offline did:key
 * resolver) and a did:key issuer.
 *
 *   node vc-peer.mjs <Ed25519Signature2020 | eddsa-rdfc-2022> <milliseconds per figure>
 *
 * Prints one JSON line: {"suite","issuePerSecond","verifyPerSecond","issueCpuMicros","verifyCpuMicros"}.
 */
import { readFileSync } from 'node:fs';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import { Ed25519VerificationKey2020 } from '@digitalbazaar/ed25519-verification-key-2020';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { securityLoader } from '@digitalbazaar/security-document-loader';
import * as vc from '@digitalbazaar/vc';

// The same timing loop as our side's, from the bench's build (`npm run bench` builds it first).
const { sequentialRate } = await import(new URL('../dist/peers/sequential-rate.js', import.meta.url).href);

const [suiteName, msText] = process.argv.slice(2);
const ms = Number(msText ?? 3_000);
const VC_V1 = 'https://www.w3.org/2018/credentials/v1';
const VC_V2 = 'https://www.w3.org/ns/credentials/v2';
const ED25519_2020 = 'https://w3id.org/security/suites/ed25519-2020/v1';

const key = await Ed25519VerificationKey2020.generate();
const did = `did:key:${key.fingerprint()}`;
key.controller = did;
key.id = `${did}#${key.fingerprint()}`;
const documentLoader = securityLoader().build();

const fixture = JSON.parse(readFileSync(new URL('./credential.json', import.meta.url), 'utf8'));
let credential;
let signingSuite;
let verifyingSuite;
if (suiteName === 'Ed25519Signature2020') {
  credential = {
    ...fixture,
    '@context': [VC_V1, ED25519_2020, ...fixture['@context']],
    issuer: did,
    issuanceDate: '2024-03-01T19:23:24Z',
  };
  signingSuite = () => new Ed25519Signature2020({ key });
  verifyingSuite = new Ed25519Signature2020();
} else if (suiteName === 'eddsa-rdfc-2022') {
  credential = {
    ...fixture,
    '@context': [VC_V2, ...fixture['@context']],
    issuer: did,
    validFrom: '2024-03-01T19:23:24Z',
  };
  const multikey = await Ed25519Multikey.from(key);
  signingSuite = () => new DataIntegrityProof({ signer: multikey.signer(), cryptosuite: eddsaRdfc2022 });
  verifyingSuite = new DataIntegrityProof({ cryptosuite: eddsaRdfc2022 });
} else {
  throw new Error(`usage: vc-peer.mjs <Ed25519Signature2020 | eddsa-rdfc-2022> <ms>; not ${suiteName}`);
}

const issue = () => vc.issue({ credential: structuredClone(credential), suite: signingSuite(), documentLoader });
const signed = await issue();
const verify = async () => {
  const result = await vc.verifyCredential({ credential: signed, suite: verifyingSuite, documentLoader });
  if (!result.verified) throw new Error(`the peer's own credential did not verify: ${JSON.stringify(result.error)}`);
};
await verify();

const issued = await sequentialRate(issue, ms);
const verified = await sequentialRate(verify, ms);
console.log(
  JSON.stringify({
    suite: suiteName,
    issuePerSecond: issued.perSecond,
    verifyPerSecond: verified.perSecond,
    issueCpuMicros: issued.cpuMicros,
    verifyCpuMicros: verified.cpuMicros,
  }),
);
