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

/** `relationship`: what the key is for, `authentication` (a controller's signatures) or `assertionMethod` (proofs). */
export async function startDidWebSite(
  pki: PrivateCa,
  key: { publicKeyMultibase(): string },
  relationship: 'authentication' | 'assertionMethod',
): Promise<DidWebSite> {
  let did = '';
  let hits = 0;
  const server = https.createServer({ cert: readFileSync(pki.certFile), key: readFileSync(pki.keyFile) }, (req, res) => {
    hits++;
    if (req.url !== '/.well-known/did.json') return void res.writeHead(404).end();
    res.setHeader('content-type', 'application/did+json');
    res.end(
      JSON.stringify({
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
      }),
    );
  });
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
