import { badRequest } from '@anchor/common/errors';
import { CONTEXT_URLS } from '@anchor/common/jsonld';
import { decodeList, encodeList, LIST_SIZE, statusAt, type ListFormat } from './bitstring.js';
import { statusListError } from './status-errors.js';

/** Status purposes this service issues; `message` lists (statusSize > 1) are read, not issued. */
export const STATUS_PURPOSES = ['revocation', 'suspension'] as const;
export type StatusPurpose = (typeof STATUS_PURPOSES)[number];

const FORMAT_TYPES: Readonly<Record<ListFormat, { entry: string; credential: string; subject: string }>> = {
  StatusList2021: { entry: 'StatusList2021Entry', credential: 'StatusList2021Credential', subject: 'StatusList2021' },
  BitstringStatusList: {
    entry: 'BitstringStatusListEntry',
    credential: 'BitstringStatusListCredential',
    subject: 'BitstringStatusList',
  },
};

/** The `credentialStatus` entry of an issued credential: entry `index` of the list credential at `listCredential`. */
export interface StatusEntry {
  id: string;
  type: string;
  statusPurpose: string;
  statusListIndex: string;
  statusListCredential: string;
}

export function statusEntry(
  format: ListFormat,
  listCredential: string,
  index: number,
  purpose: StatusPurpose,
): StatusEntry {
  return {
    id: `${listCredential}#${index}`,
    type: FORMAT_TYPES[format].entry,
    statusPurpose: purpose,
    statusListIndex: String(index),
    statusListCredential: listCredential,
  };
}

export interface ListCredentialInput {
  format: ListFormat;
  /** The URL the list credential is served at (also its `id`). */
  id: string;
  issuer: string;
  purpose: StatusPurpose;
  bits: Uint8Array;
  /** `issuanceDate` (StatusList2021) or `validFrom` (Bitstring Status List), an XML Schema dateTimeStamp. */
  issued: string;
}

/** The unsigned status list credential: VC 1.1 with the StatusList2021 context, or VC 2.0. */
export function statusListCredential(input: ListCredentialInput): Record<string, unknown> {
  const types = FORMAT_TYPES[input.format];
  const subject = {
    id: `${input.id}#list`,
    type: types.subject,
    statusPurpose: input.purpose,
    encodedList: encodeList(input.bits, input.format),
  };
  const v2 = input.format === 'BitstringStatusList';
  return {
    '@context': v2 ? [CONTEXT_URLS.credentialsV2] : [CONTEXT_URLS.credentialsV1, CONTEXT_URLS.statusList2021V1],
    id: input.id,
    type: ['VerifiableCredential', types.credential],
    issuer: input.issuer,
    [v2 ? 'validFrom' : 'issuanceDate']: input.issued,
    credentialSubject: subject,
  };
}

/** A `credentialStatus` entry this module can check, read from a credential. */
export interface ParsedStatusEntry {
  format: ListFormat;
  purpose: string;
  index: number;
  listCredential: string;
  statusSize: number;
  /** Bitstring Status List `statusMessage`, when the entry carries one. */
  statusMessage?: { status: string; message?: string }[];
}

/** Reads one `credentialStatus` entry; anything malformed is a `bad_request` naming the member. */
export function parseStatusEntry(entry: unknown): ParsedStatusEntry {
  if (!isObject(entry)) throw badRequest('credentialStatus must be an object');
  const format = (Object.keys(FORMAT_TYPES) as ListFormat[]).find((name) => FORMAT_TYPES[name].entry === entry.type);
  if (format === undefined)
    throw badRequest(
      `credentialStatus.type must be StatusList2021Entry or BitstringStatusListEntry, not ${JSON.stringify(entry.type)}`,
    );
  const { statusPurpose, statusListIndex, statusListCredential } = entry;
  if (typeof statusPurpose !== 'string' || statusPurpose.length === 0)
    throw badRequest('credentialStatus.statusPurpose must be a non-empty string');
  if (
    typeof statusListIndex !== 'string' ||
    !/^(0|[1-9][0-9]*)$/.test(statusListIndex) ||
    !Number.isSafeInteger(Number(statusListIndex))
  )
    throw badRequest(
      `credentialStatus.statusListIndex must be a non-negative base-10 integer string, not ${JSON.stringify(statusListIndex)}`,
    );
  if (typeof statusListCredential !== 'string' || !URL.canParse(statusListCredential))
    throw badRequest(
      `credentialStatus.statusListCredential must be a URL, not ${JSON.stringify(statusListCredential)}`,
    );
  const parsed: ParsedStatusEntry = {
    format,
    purpose: statusPurpose,
    index: Number(statusListIndex),
    listCredential: statusListCredential,
    statusSize: 1,
  };
  if (format === 'BitstringStatusList') readStatusSize(entry, parsed);
  return parsed;
}

function readStatusSize(entry: Record<string, unknown>, parsed: ParsedStatusEntry): void {
  const { statusSize, statusMessage } = entry;
  if (statusSize !== undefined) {
    const size = typeof statusSize === 'string' && /^[1-8]$/.test(statusSize) ? Number(statusSize) : statusSize;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 8)
      throw badRequest(`credentialStatus.statusSize must be an integer from 1 to 8, not ${JSON.stringify(statusSize)}`);
    parsed.statusSize = size;
  }
  if (statusMessage !== undefined) {
    if (
      !Array.isArray(statusMessage) ||
      statusMessage.length !== 2 ** parsed.statusSize ||
      !statusMessage.every((m) => isObject(m) && typeof m.status === 'string')
    )
      throw badRequest(
        `credentialStatus.statusMessage must list ${2 ** parsed.statusSize} objects with a status string`,
      );
    parsed.statusMessage = statusMessage as ParsedStatusEntry['statusMessage'];
  } else if (parsed.statusSize > 1) {
    throw badRequest('credentialStatus.statusMessage is required when statusSize is greater than 1');
  }
}

export interface StatusResult {
  purpose: string;
  /** The entry's value: 0 or 1, or up to 2^statusSize - 1. */
  status: number;
  /** True when the value is 0 (not revoked, not suspended). */
  valid: boolean;
  /** The issuer of the list credential, for the caller's trust decision. */
  listIssuer: string;
  message?: string;
}

export interface StatusCheckOptions {
  /** When set, the list credential's issuer must be this one (STATUS_VERIFICATION_ERROR otherwise). */
  expectedIssuer?: string;
  /** Default LIST_SIZE. */
  minEntries?: number;
}

/**
 * The status an entry points at, read from the (already dereferenced, proof-checked) list credential, per the
 * Bitstring Status List validate algorithm: the list credential's type and purpose must match the entry's
 * (STATUS_VERIFICATION_ERROR), the list must be long enough (STATUS_LIST_LENGTH_ERROR) and the index in it
 * (RANGE_ERROR). Each failure is a `bad_request` whose `details.statusError` is the spec's error name.
 */
export function checkStatus(
  entry: ParsedStatusEntry,
  listCredential: unknown,
  options: StatusCheckOptions = {},
): StatusResult {
  const types = FORMAT_TYPES[entry.format];
  if (!isObject(listCredential))
    throw statusListError('STATUS_VERIFICATION_ERROR', 'the status list credential is not a JSON object');
  const credentialTypes = [listCredential.type].flat();
  if (!credentialTypes.includes(types.credential))
    throw statusListError('STATUS_VERIFICATION_ERROR', `the status list credential is not a ${types.credential}`);
  if (listCredential.id !== undefined && listCredential.id !== entry.listCredential)
    throw statusListError(
      'STATUS_VERIFICATION_ERROR',
      `the status list credential's id is not ${entry.listCredential}`,
    );
  const listIssuer = issuerId(listCredential.issuer);
  if (options.expectedIssuer !== undefined && listIssuer !== options.expectedIssuer)
    throw statusListError(
      'STATUS_VERIFICATION_ERROR',
      `the status list credential is issued by ${String(listIssuer)}, not by the credential's issuer ${options.expectedIssuer}`,
    );
  const subject = listCredential.credentialSubject;
  if (!isObject(subject) || subject.type !== types.subject)
    throw statusListError(
      'STATUS_VERIFICATION_ERROR',
      `the status list credential's subject is not a ${types.subject}`,
    );
  // A Bitstring Status List may serve several purposes; StatusList2021 names exactly one.
  if (![subject.statusPurpose].flat().includes(entry.purpose))
    throw statusListError(
      'STATUS_VERIFICATION_ERROR',
      `the status list's purpose ${JSON.stringify(subject.statusPurpose)} is not the entry's ${JSON.stringify(entry.purpose)}`,
    );
  const bits = decodeList(subject.encodedList, entry.format, {
    minEntries: options.minEntries ?? LIST_SIZE,
    statusSize: entry.statusSize,
  });
  const status = statusAt(bits, entry.index, entry.statusSize);
  const result: StatusResult = { purpose: entry.purpose, status, valid: status === 0, listIssuer: listIssuer ?? '' };
  const message = entry.statusMessage?.find((m) => Number.parseInt(m.status, 16) === status)?.message;
  if (message !== undefined) result.message = message;
  return result;
}

function issuerId(issuer: unknown): string | undefined {
  if (typeof issuer === 'string') return issuer;
  if (isObject(issuer) && typeof issuer.id === 'string') return issuer.id;
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
