import { KeyPair } from '@anchor/common/crypto';
import { isRetryable } from '@anchor/common/errors';
import { createHttpClient, peerStatusOf, type HttpClient } from '@anchor/common/http-client';
import { addPublicKeys, createRequest, documentKey, serializeRequest } from '@anchor/sidetree';

export interface DemoDid {
  /** `did:node:uAAA:<suffix>`: resolvable on the node it was posted to at once, elsewhere once published. */
  did: string;
  didSuffix: string;
  /** The create request exactly as posted. */
  body: Buffer;
}

export interface PublishedView {
  node: string;
  canonicalId: string;
}

const OPERATIONS = '/sidetree/v1/operations';
const IDENTIFIERS = '/sidetree/v1/identifiers';

/**
 * Creates one DID on `nodeUrl` (anchor origin: that node) with a fresh Ed25519 document key, as a wallet
 * would: the request is built with @anchor/sidetree's `createRequest` and posted to the Sidetree API.
 * The keys are thrown away: this DID exists to be watched, not controlled.
 */
export async function createDemoDid(nodeUrl: string): Promise<DemoDid> {
  const built = createRequest({
    recoveryKey: KeyPair.generate('Ed25519'),
    updateKey: KeyPair.generate('Ed25519'),
    anchorOrigin: nodeUrl,
    patches: [
      addPublicKeys(
        documentKey('key-1', KeyPair.generate('Ed25519'), { purposes: ['authentication', 'assertionMethod'] }),
      ),
    ],
  });
  const body = serializeRequest(built.request);
  const http = createHttpClient();
  try {
    await http.request(`${nodeUrl}${OPERATIONS}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
  } finally {
    http.close();
  }
  return { did: built.did, didSuffix: built.didSuffix, body };
}

/** The URL that resolves `did` on the node at `nodeUrl`. */
export function resolutionUrl(nodeUrl: string, did: string): string {
  return `${nodeUrl}${IDENTIFIERS}/${did}`;
}

/**
 * Polls every node until it resolves `did` as published (anchored, witnessed, and observed there), and
 * returns the canonical id each reports; rejects after `timeoutMs` naming the nodes still waiting.
 */
export async function waitUntilPublished(
  nodeUrls: readonly string[],
  did: string,
  timeoutMs = 60_000,
): Promise<PublishedView[]> {
  const http = createHttpClient({ timeoutMs: 5_000 });
  const deadline = Date.now() + timeoutMs;
  const found = new Map<string, string>();
  try {
    for (;;) {
      for (const node of nodeUrls.filter((url) => !found.has(url))) {
        const canonicalId = await publishedCanonicalId(http, resolutionUrl(node, did));
        if (canonicalId !== undefined) found.set(node, canonicalId);
      }
      if (found.size === nodeUrls.length)
        return nodeUrls.map((node) => ({ node, canonicalId: found.get(node) as string }));
      if (Date.now() >= deadline)
        throw new Error(
          `${did} is not published on ${nodeUrls.filter((url) => !found.has(url)).join(', ')} after ${timeoutMs} ms`,
        );
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    http.close();
  }
}

async function publishedCanonicalId(http: HttpClient, url: string): Promise<string | undefined> {
  try {
    const { data } = await http.get<{
      didDocumentMetadata?: { canonicalId?: unknown; method?: { published?: unknown } };
    }>(url);
    const metadata = data.didDocumentMetadata;
    return metadata?.method?.published === true && typeof metadata.canonicalId === 'string'
      ? metadata.canonicalId
      : undefined;
  } catch (error) {
    // Not known there yet (404) or the node is busy: ask again.
    if (peerStatusOf(error) === 404 || isRetryable(error)) return undefined;
    throw error;
  }
}
