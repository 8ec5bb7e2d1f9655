/**
 * A did:web site for tests of a service's outbound trust: `did:web:127.0.0.1%3A<port>` served over https with a
 * certificate only a private CA vouches for, so a service reaches it only when given that CA (`--tls-cacerts`)
 * and only where loopback peers are allowed. Its document names one Ed25519 key (`#key-1`); it counts every
 * request, so a test can show a refused address was never connected to.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { PrivateCa } from '../private-ca/index.js';

export interface DidWebSite {
  readonly did: string;
  /** Requests received so far. */
  readonly hits: number;
  close(): Promise<void>;
}

/**
 * did:web DIDs no service may reach outside dev mode (link-local, private, reserved; one with a port and a path),
 * each with how the SSRF guard names its address in the refusal (`<kind>: refused`).
 */
export const REFUSED_DID_WEBS: ReadonlyArray<readonly [did: string, kind: string]> = [
  ['did:web:169.254.169.254', '169.254.169.254, a link-local address'],
  ['did:web:10.0.0.7%3A8443:issuers:a', '10.0.0.7, a private address'],
  ['did:web:192.168.1.20', '192.168.1.20, a private address'],
  ['did:web:100.64.0.1', '100.64.0.1, a reserved address'],
];

/** A DID document naming one Ed25519 key, `<did>#key-1`, for `relationship`. */
export function ed25519DidDocument(
  did: string,
  key: { publicKeyMultibase(): string },
  relationship: 'authentication' | 'assertionMethod',
): object {
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/ed25519-2020/v1'],
    id: did,
    verificationMethod: [
      {
        id: `${did}#key-1`,
        type: 'Ed25519VerificationKey2020',
        controller: did,
        publicKeyMultibase: key.publicKeyMultibase(),
      },
    ],
    [relationship]: [`${did}#key-1`],
  };
}

/** `relationship`: what the key is for, `authentication` (a controller's signatures) or `assertionMethod` (proofs). */
export async function startDidWebSite(
  pki: PrivateCa,
  key: { publicKeyMultibase(): string },
  relationship: 'authentication' | 'assertionMethod',
): Promise<DidWebSite> {
  let did = '';
  let hits = 0;
  const server = https.createServer(
    { cert: readFileSync(pki.certFile), key: readFileSync(pki.keyFile) },
    (req, res) => {
      hits++;
      if (req.url !== '/.well-known/did.json') return void res.writeHead(404).end();
      res.setHeader('content-type', 'application/did+json');
      res.end(JSON.stringify(ed25519DidDocument(did, key, relationship)));
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  did = `did:web:127.0.0.1%3A${(server.address() as AddressInfo).port}`;
  return {
    did,
    get hits() {
      return hits;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
