import { opt } from '@anchor/common/config';

/** The node's `anchoring` section: when batches are cut, who writes them, and how anchor credentials look. */
export const anchoringOptions = {
  batchWriterTimeout: opt.duration({
    flag: 'batch-writer-timeout',
    short: 'b',
    env: ['BATCH_WRITER_TIMEOUT'],
    default: '1s',
    min: '10ms',
    help: 'Longest time an accepted operation waits before its batch is cut',
  }),
  maxOperationsPerBatch: opt.int({
    flag: 'max-operations-per-batch',
    default: 10_000,
    min: 1,
    max: 10_000,
    help: 'Cut a batch as soon as this many operations are pending (protocol maximum 10000)',
  }),
  maxQueuedOperations: opt.int({
    flag: 'max-queued-operations',
    default: 100_000,
    min: 1,
    help: 'Refuse new operations with 503 and Retry-After while this many are accepted and not yet anchored (back-pressure when batches keep failing)',
  }),
  batchWriterLease: opt.duration({
    flag: 'batch-writer-lease',
    default: '15s',
    min: '1s',
    help: 'Lease that makes one instance of a deployment the batch writer; another takes over this long after it stops renewing',
  }),
  anchorCredentialDomain: opt.string({
    flag: 'anchor-credential-domain',
    env: ['ANCHOR_CREDENTIAL_DOMAIN'],
    help: 'Proof domain when the anchor credential is signed without a log (default: the external endpoint)',
  }),
  anchorDataUriMediaType: opt.enum(['application/gzip;base64', 'application/json'], {
    flag: 'anchor-data-uri-media-type',
    env: ['ANCHOR_DATA_URI_MEDIA_TYPE'],
    default: 'application/gzip;base64',
    help: 'Encoding of the data: URIs inside anchor linksets',
  }),
  signWithLocalWitness: opt.bool({
    flag: 'sign-with-local-witness',
    short: 'f',
    env: ['SIGN_WITH_LOCAL_WITNESS'],
    default: true,
    help: 'Always add the local witness (log-backed when a log is configured) proof to anchor credentials',
  }),
};
