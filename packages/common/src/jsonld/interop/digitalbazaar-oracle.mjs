/**
 * Test oracle: the Digital Bazaar implementation (jsonld-signatures, @digitalbazaar/vc and the Ed25519
 * suites), run in its own process so that it loads a pristine jsonld.js — this package tunes the shared
 * jsonld.js instance of its own process, and an interop check must not run both sides on that.
 *
 * Reads one JSON request on stdin: `{ contexts: {url: document}, controllers: [didDocument], tasks: [...] }`
 * and writes `{ results: [...] }` (one per task, `{ok: true, value}` or `{ok: false, error}`) on stdout.
 * Tasks:
 *   {op: 'canonize', document}                                     → N-Quads (safe mode, RDFC-1.0, no base)
 *   {op: 'sign', suite: '2020'|'2018', document, seedHex, keyId, controller, domain?, created?, credential?}
 *                                                                  → the signed document
 *   {op: 'sign', suite: 'eddsa-rdfc-2022'|'ecdsa-rdfc-2019', document, jwk, keyId, controller, created?, credential?}
 *                                                                  → the signed document (@digitalbazaar/data-integrity,
 *                                                                    the key a private JWK through the Multikey libraries)
 *   {op: 'verify', suite, document, credential?}                   → {verified, error?}
 * `credential: true` goes through @digitalbazaar/vc (issue / verifyCredential: issuer must be the key's
 * controller); otherwise jsonld-signatures with an assertionMethod purpose.
 */
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import * as EcdsaMultikey from '@digitalbazaar/ecdsa-multikey';
import { cryptosuite as ecdsaRdfc2019 } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { Ed25519Signature2018 } from '@digitalbazaar/ed25519-signature-2018';
import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import { Ed25519VerificationKey2018 } from '@digitalbazaar/ed25519-verification-key-2018';
import { Ed25519VerificationKey2020 } from '@digitalbazaar/ed25519-verification-key-2020';
import * as vc from '@digitalbazaar/vc';
import jsonld from 'jsonld';
import jsigs from 'jsonld-signatures';

const { AssertionProofPurpose } = jsigs.purposes;
const KEY_CONTEXTS = {
  Ed25519VerificationKey2018: 'https://w3id.org/security/suites/ed25519-2018/v1',
  Ed25519VerificationKey2020: 'https://w3id.org/security/suites/ed25519-2020/v1',
  Multikey: 'https://w3id.org/security/multikey/v1',
};
const CRYPTOSUITES = {
  'eddsa-rdfc-2022': { cryptosuite: eddsaRdfc2022, multikey: Ed25519Multikey },
  'ecdsa-rdfc-2019': { cryptosuite: ecdsaRdfc2019, multikey: EcdsaMultikey },
};

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function documentLoaderFor(contexts, controllers) {
  const documents = new Map(Object.entries(contexts));
  for (const controller of controllers) {
    documents.set(controller.id, controller);
    // Verification methods are dereferenced by their DID URL, carrying the context of their key type.
    for (const method of controller.verificationMethod ?? []) {
      documents.set(method.id, { '@context': KEY_CONTEXTS[method.type] ?? controller['@context'], ...method });
    }
  }
  return async (url) => {
    const document = documents.get(url);
    if (!document) throw new Error(`oracle loader: unknown document ${url}`);
    return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
  };
}

async function suiteFor(task) {
  const dataIntegrity = CRYPTOSUITES[task.suite];
  if (dataIntegrity) {
    const date = task.created;
    if (!task.jwk) return new DataIntegrityProof({ cryptosuite: dataIntegrity.cryptosuite });
    const key = await dataIntegrity.multikey.fromJwk({
      jwk: task.jwk,
      secretKey: true,
      id: task.keyId,
      controller: task.controller,
    });
    return new DataIntegrityProof({ signer: key.signer(), cryptosuite: dataIntegrity.cryptosuite, date });
  }
  const seed = Buffer.from(task.seedHex ?? '', 'hex');
  const proof = task.domain === undefined ? undefined : { domain: task.domain };
  const date = task.created;
  if (task.suite === '2020') {
    const key = task.seedHex
      ? await Ed25519VerificationKey2020.generate({ seed, id: task.keyId, controller: task.controller })
      : undefined;
    return new Ed25519Signature2020({ key, proof, date });
  }
  if (task.suite === '2018') {
    const key = task.seedHex
      ? await Ed25519VerificationKey2018.generate({ seed, id: task.keyId, controller: task.controller })
      : undefined;
    return new Ed25519Signature2018({ key, proof, date });
  }
  throw new Error(`unknown suite ${task.suite}`);
}

async function run(task, documentLoader) {
  switch (task.op) {
    case 'canonize':
      return jsonld.canonize(task.document, {
        algorithm: 'RDFC-1.0',
        format: 'application/n-quads',
        base: null,
        safe: true,
        documentLoader,
      });
    case 'sign': {
      const suite = await suiteFor(task);
      if (task.credential) return vc.issue({ credential: structuredClone(task.document), suite, documentLoader });
      return jsigs.sign(structuredClone(task.document), {
        suite,
        purpose: new AssertionProofPurpose(),
        documentLoader,
      });
    }
    case 'verify': {
      const suite = await suiteFor(task);
      const result = task.credential
        ? await vc.verifyCredential({ credential: task.document, suite, documentLoader })
        : await jsigs.verify(task.document, { suite, purpose: new AssertionProofPurpose(), documentLoader });
      const error = result.error ?? result.results?.find((r) => !r.verified)?.error;
      const messages = error?.errors?.map((inner) => inner.message) ?? [];
      return {
        verified: result.verified,
        error: error ? [String(error.message ?? error), ...messages].join('; ') : undefined,
      };
    }
    default:
      throw new Error(`unknown op ${task.op}`);
  }
}

const request = await readStdin();
const documentLoader = documentLoaderFor(request.contexts, request.controllers ?? []);
const results = [];
for (const task of request.tasks) {
  try {
    results.push({ ok: true, value: await run(task, documentLoader) });
  } catch (error) {
    results.push({ ok: false, error: String(error?.message ?? error) });
  }
}
process.stdout.write(JSON.stringify({ results }));
