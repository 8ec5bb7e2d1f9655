/**
 * Builds the canonical (JCS) text of a normalised request from parts that are already canonical, so a
 * request is never canonicalised twice. Member names are emitted in JCS order (delta < didSuffix <
 * revealValue < signedData < suffixData < type); string values go through JSON.stringify, which is exactly
 * how JCS writes strings.
 */
export function canonicalCreateRequest(canonicalSuffixData: string, canonicalDelta: string | undefined): Buffer {
  const delta = canonicalDelta === undefined ? '' : `"delta":${canonicalDelta},`;
  return ownedBytes(`{${delta}"suffixData":${canonicalSuffixData},"type":"create"}`);
}

export function canonicalSignedRequest(
  type: 'update' | 'recover' | 'deactivate',
  didSuffix: string,
  revealValue: string,
  signedData: string,
  canonicalDelta: string | undefined,
): Buffer {
  const delta = canonicalDelta === undefined ? '' : `"delta":${canonicalDelta},`;
  const text = `{${delta}"didSuffix":${JSON.stringify(didSuffix)},"revealValue":${JSON.stringify(revealValue)},"signedData":${JSON.stringify(signedData)},"type":"${type}"}`;
  return ownedBytes(text);
}

/**
 * UTF-8 bytes in a buffer of their own. `Buffer.from` cuts small buffers from a shared 8 KiB pool chunk, and
 * one live slice keeps the whole chunk: a parsed operation lives on in caches (resolution, batches), where
 * each of its requests would hold 8 KiB instead of its own one or two.
 */
function ownedBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
  bytes.write(text, 0, 'utf8');
  return bytes;
}
