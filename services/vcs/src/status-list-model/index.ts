/**
 * Credential status lists, pure: StatusList2021 (VC 1.1) and the W3C Bitstring Status List (VC 2.0): the
 * bits (index 0 = most significant bit of the first byte), their GZIP + base64url encoding, index allocation
 * without reuse, the entries and list credentials, and the status check. No I/O: storage, signing and
 * dereferencing are the service's.
 */
export {
  LIST_FORMATS,
  LIST_SIZE,
  MAX_LIST_BYTES,
  type DecodeListOptions,
  type ListFormat,
  bitAt,
  decodeList,
  emptyList,
  encodeList,
  statusAt,
  withBit,
} from './bitstring.js';
export { type AllocatorState, allocateIndex, checkState, newAllocator, reserveIndexes } from './allocator.js';
export {
  STATUS_PURPOSES,
  type ListCredentialInput,
  type ParsedStatusEntry,
  type StatusCheckOptions,
  type StatusEntry,
  type StatusPurpose,
  type StatusResult,
  checkStatus,
  parseStatusEntry,
  statusEntry,
  statusListCredential,
} from './credentials.js';
export { type StatusListErrorCode, statusListError } from './status-errors.js';
