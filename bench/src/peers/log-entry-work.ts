/**
 * The per-entry work of our add-vc that Tessera does not do, timed on one core in this process with nothing
 * else of the bench running: the JSON-LD canonicalisation of the credential (the leaf is its N-Quads) and the
 * Ed25519 signature over its VCTimestampSignature (every add-vc answer carries one: the v1 contract). Beside the
 * Tessera pair it says what that work alone allows on these cores, before any HTTP or storage.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { canonicalize } from '@anchor/common/jsonld';
import { vcEntryOf, vcTimestampSignaturePayload } from '@anchor/common/vct';
import { benchCredential } from '../vct-log/credentials.js';

export interface EntryWork {
  canonicaliseMicros: number;
  signMicros: number;
}

export async function logEntryWork(count = 2_000): Promise<EntryWork> {
  const credentials = Array.from({ length: count }, (_, n) => benchCredential('entry-work', n));
  for (const credential of credentials.slice(0, 500)) await canonicalize(credential);
  let started = performance.now();
  const nquads: string[] = [];
  for (const credential of credentials) nquads.push(await canonicalize(credential));
  const canonicaliseMicros = ((performance.now() - started) * 1_000) / count;
  const { privateKey } = generateKeyPairSync('ed25519');
  const payloads = nquads.map((text) => vcTimestampSignaturePayload(Date.now(), vcEntryOf(text)));
  for (const payload of payloads.slice(0, 200)) sign(null, payload, privateKey);
  started = performance.now();
  for (const payload of payloads) sign(null, payload, privateKey);
  const signMicros = ((performance.now() - started) * 1_000) / count;
  return { canonicaliseMicros, signMicros };
}
