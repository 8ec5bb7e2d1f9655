import { describe, expect, it } from 'vitest';
import { CONTEXT_URLS, canonicalize } from '@anchor/common/jsonld';
import { LIST_SIZE, emptyList, withBit, type ListFormat } from './bitstring.js';
import { checkStatus, parseStatusEntry, statusEntry, statusListCredential, type StatusPurpose } from './credentials.js';
import { statusListRefusal } from './status-list.test-helpers.js';

const LIST_URL = 'https://vcs.example.com/issuer-1/status/7';
const ISSUER = 'did:example:issuer';

function listCredential(format: ListFormat, purpose: StatusPurpose, revoked: number[] = []) {
  let bits = emptyList();
  for (const index of revoked) bits = withBit(bits, index, true);
  return statusListCredential({ format, id: LIST_URL, issuer: ISSUER, purpose, bits, issued: '2024-05-01T00:00:00Z' });
}

describe.each<ListFormat>(['StatusList2021', 'BitstringStatusList'])('%s credentials', (format) => {
  const v2 = format === 'BitstringStatusList';

  it('builds the entry and the list credential in the shape of the specification', () => {
    expect(statusEntry(format, LIST_URL, 94_567, 'revocation')).toEqual({
      id: `${LIST_URL}#94567`,
      type: v2 ? 'BitstringStatusListEntry' : 'StatusList2021Entry',
      statusPurpose: 'revocation',
      statusListIndex: '94567',
      statusListCredential: LIST_URL,
    });
    const credential = listCredential(format, 'suspension');
    expect(credential).toMatchObject({
      '@context': v2 ? [CONTEXT_URLS.credentialsV2] : [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.statusList2021V1],
      id: LIST_URL,
      type: ['VerifiableCredential', v2 ? 'BitstringStatusListCredential' : 'StatusList2021Credential'],
      issuer: ISSUER,
      [v2 ? 'validFrom' : 'issuanceDate']: '2024-05-01T00:00:00Z',
      credentialSubject: {
        id: `${LIST_URL}#list`,
        type: v2 ? 'BitstringStatusList' : 'StatusList2021',
        statusPurpose: 'suspension',
      },
    });
  });

  it('canonicalises with the bundled contexts only (so it can be signed), and so does a credential carrying the entry', async () => {
    await expect(canonicalize(listCredential(format, 'revocation'))).resolves.toMatch(/encodedList/);
    const credential = {
      '@context': v2 ? [CONTEXT_URLS.credentialsV2] : [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.statusList2021V1],
      type: ['VerifiableCredential'],
      issuer: ISSUER,
      [v2 ? 'validFrom' : 'issuanceDate']: '2024-05-01T00:00:00Z',
      credentialSubject: { id: 'did:example:subject' },
      credentialStatus: statusEntry(format, LIST_URL, 3, 'revocation'),
    };
    await expect(canonicalize(credential)).resolves.toMatch(/statusListIndex/);
  });

  it('reads the status of an entry: valid until its bit is set', () => {
    const entry = parseStatusEntry(statusEntry(format, LIST_URL, 42, 'revocation'));
    expect(entry).toEqual({ format, purpose: 'revocation', index: 42, listCredential: LIST_URL, statusSize: 1 });
    expect(checkStatus(entry, listCredential(format, 'revocation', [41, 43]))).toEqual({
      purpose: 'revocation',
      status: 0,
      valid: true,
      listIssuer: ISSUER,
    });
    expect(checkStatus(entry, listCredential(format, 'revocation', [42]))).toMatchObject({ status: 1, valid: false });
    expect(checkStatus(entry, listCredential(format, 'revocation', [42]), { expectedIssuer: ISSUER }).valid).toBe(
      false,
    );
  });

  it('refuses a list credential of another purpose, format, subject, id or issuer (STATUS_VERIFICATION_ERROR)', () => {
    const entry = parseStatusEntry(statusEntry(format, LIST_URL, 42, 'revocation'));
    const other: ListFormat = v2 ? 'StatusList2021' : 'BitstringStatusList';
    const cases: [unknown, RegExp, object?][] = [
      [listCredential(format, 'suspension'), /purpose "suspension" is not the entry's "revocation"/],
      [listCredential(other, 'revocation'), /is not a/],
      [{ ...listCredential(format, 'revocation'), id: 'https://elsewhere.example/list' }, /id is not/],
      [{ ...listCredential(format, 'revocation'), credentialSubject: { type: 'Other' } }, /subject is not a/],
      [
        listCredential(format, 'revocation'),
        /issued by did:example:issuer, not by the credential's issuer did:example:other/,
        { expectedIssuer: 'did:example:other' },
      ],
      ['not an object', /not a JSON object/],
    ];
    for (const [list, message, options] of cases) {
      const error = statusListRefusal(() => checkStatus(entry, list, options));
      expect(error.message).toMatch(message);
      expect(error.statusError).toBe('STATUS_VERIFICATION_ERROR');
    }
  });

  it('refuses an index beyond the list (RANGE_ERROR)', () => {
    const entry = parseStatusEntry(statusEntry(format, LIST_URL, LIST_SIZE, 'revocation'));
    expect(statusListRefusal(() => checkStatus(entry, listCredential(format, 'revocation'))).statusError).toBe(
      'RANGE_ERROR',
    );
  });
});

describe('parseStatusEntry', () => {
  const good = statusEntry('BitstringStatusList', LIST_URL, 5, 'revocation');
  it.each([
    ['not an object', 'x', /credentialStatus must be an object/],
    [
      'an unknown type',
      { ...good, type: 'RevocationList2020Status' },
      /type must be StatusList2021Entry or BitstringStatusListEntry/,
    ],
    ['no purpose', { ...good, statusPurpose: undefined }, /statusPurpose must be a non-empty string/],
    [
      'a numeric index',
      { ...good, statusListIndex: 5 },
      /statusListIndex must be a non-negative base-10 integer string/,
    ],
    ['a negative index', { ...good, statusListIndex: '-1' }, /statusListIndex/],
    ['a leading zero', { ...good, statusListIndex: '05' }, /statusListIndex/],
    ['an index beyond 2^53', { ...good, statusListIndex: '9007199254740993' }, /statusListIndex/],
    ['a relative list URL', { ...good, statusListCredential: 'status/7' }, /statusListCredential must be a URL/],
    ['statusSize 0', { ...good, statusSize: 0 }, /statusSize must be an integer from 1 to 8/],
    ['statusSize 2 without messages', { ...good, statusSize: 2 }, /statusMessage is required/],
    ['too few messages', { ...good, statusSize: 2, statusMessage: [{ status: '0x0' }] }, /must list 4 objects/],
  ])('refuses %s', (_name, entry, message) => {
    expect(statusListRefusal(() => parseStatusEntry(entry)).message).toMatch(message);
  });

  it('reads a message entry and reports its message', () => {
    const statusMessage = ['valid', 'pending', 'suspended', 'revoked'].map((message, value) => ({
      status: `0x${value}`,
      message,
    }));
    const entry = parseStatusEntry({ ...good, statusPurpose: 'message', statusSize: 2, statusMessage });
    let bits = emptyList();
    bits = withBit(withBit(bits, 10, true), 11, true); // entry 5 = 0b11
    const list = statusListCredential({
      format: 'BitstringStatusList',
      id: LIST_URL,
      issuer: ISSUER,
      purpose: 'revocation',
      bits,
      issued: '2024-05-01T00:00:00Z',
    });
    (list.credentialSubject as Record<string, unknown>).statusPurpose = ['revocation', 'message'];
    expect(checkStatus(entry, list, { minEntries: LIST_SIZE / 2 })).toMatchObject({
      status: 3,
      valid: false,
      message: 'revoked',
    });
  });
});
