/**
 * JSON-LD: URDNA2015 canonicalisations of a ~2 KB credential, and Ed25519Signature2020 proof creation and
 * verification on it with contexts cached, held against the ≥ 1,000 creates/s target. Each proof
 * canonicalises the credential and the proof options, so it is bounded by canonicalisation; the figures
 * are single-threaded.
 */
import {
  activeContextSharing,
  canonicalize,
  controllerDocumentResolver,
  signDocument,
  verifyDocument,
  type ProofOptions,
} from '@anchor/common/jsonld';
import { KEY_2020_ID, degreeCredential, issuerDidDocument, issuerKey } from '@anchor/common/jsonld/fixtures';
import { atLeast, rate, report, summary } from './lib/report.js';

const SECTION = 'jsonld';
const credential = degreeCredential(undefined, 12);
const resolver = controllerDocumentResolver([issuerDidDocument()]);
const proofOptions: ProofOptions = {
  key: issuerKey,
  verificationMethod: KEY_2020_ID,
  domain: 'https://vct.example.com/maple2020',
};

const size = Buffer.byteLength(JSON.stringify(credential));
const signed = await signDocument(credential, proofOptions);
if (!(await verifyDocument(signed, { resolver })).verified) throw new Error('benchmark credential does not verify');

console.log(
  `jsonld.js active-context sharing: ${activeContextSharing ? 'on' : 'OFF (jsonld.js internals changed; expect ~1,000 canonicalisations/s)'}`,
);
report(SECTION, 'credential size', size, 'bytes');
report(SECTION, 'URDNA2015 canonicalisations of the credential', await rate(() => canonicalize(credential)), 'ops/s');
report(
  SECTION,
  'Ed25519Signature2020 create',
  await rate(() => signDocument(credential, proofOptions)),
  'ops/s',
  atLeast(1_000),
);
report(SECTION, 'Ed25519Signature2020 verify', await rate(() => verifyDocument(signed, { resolver })), 'ops/s');
summary();
