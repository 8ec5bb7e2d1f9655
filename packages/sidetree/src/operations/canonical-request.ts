/**
 * Builds the canonical (JCS) text of a normalised request from parts that are already canonical, so a
 * request is never canonicalised twice. Member names are emitted in JCS order (delta < didSuffix <
 * revealValue < signedData < suffixData < type); string values go through JSON.stringify, which is exactly
 * how JCS writes strings.
 */
export function canonicalCreateRequest(canonicalSuffixData: string, canonicalDelta: string | undefined): Buffer {
  const delta = canonicalDelta === undefined ? '' : `"delta":${canonicalDelta},`;
  return Buffer.from(`{${delta}"suffixData":${canonicalSuffixData},"type":"create"}`, 'utf8');
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
  return Buffer.from(text, 'utf8');
}
