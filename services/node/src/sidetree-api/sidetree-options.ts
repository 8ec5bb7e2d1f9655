import { opt, type ValuesOf } from '@anchor/common/config';
import { formatByteSize, parseByteSize } from '@anchor/common/http';
import { PROTOCOL_VERSION_NAMES, ProtocolRegistry } from '@anchor/sidetree';

/**
 * The node's `sidetree` section: the DID namespace and its aliases, accepted anchor origins, the protocol
 * versions, the unpublished-operation store and the resolution cache.
 */
export const sidetreeOptions = {
  didNamespace: opt.string({
    flag: 'did-namespace',
    short: 'n',
    env: ['DID_NAMESPACE'],
    default: 'did:node',
    help: 'DID method namespace',
  }),
  didAliases: opt.list({
    flag: 'did-aliases',
    short: 'a',
    env: ['DID_ALIASES'],
    help: 'Alternate namespaces accepted on resolution (e.g. did:orb)',
  }),
  allowedOrigins: opt.list({
    flag: 'allowed-origins',
    short: 'o',
    env: ['ALLOWED_ORIGINS'],
    help: 'Anchor origins accepted on create/recover, merged into the stored list at start (* allows any). When nothing is stored or given, the node accepts its own external endpoint and service id',
  }),
  allowedOriginsCacheExpiration: opt.duration({
    flag: 'allowed-origins-cache-expiration',
    env: ['ALLOWED_ORIGINS_CACHE_EXPIRATION'],
    default: '1m',
    help: 'How long other instances may serve a stale allowed-origins list (this instance sees its own changes at once)',
  }),
  allowedDidWebDomains: opt.list({
    flag: 'allowed-did-web-domains',
    env: ['ALLOWED_DID_WEB_DOMAINS'],
    help: 'Domains besides this node whose did:web:<domain>:scid:<suffix> ids this node resolves',
  }),
  unpublishedOperationStore: opt.bool({
    flag: 'enable-unpublished-operation-store',
    env: ['ANCHOR_UNPUBLISHED_OPERATION_STORE_ENABLED', 'UNPUBLISHED_OPERATION_STORE_ENABLED'],
    default: true,
    help: 'Make accepted operations resolvable before they are anchored',
  }),
  unpublishedOperationTypes: opt.enumList(['create', 'update', 'recover', 'deactivate'], {
    flag: 'unpublished-operation-store-operation-types',
    env: ['UNPUBLISHED_OPERATION_STORE_OPERATION_TYPES'],
    default: ['create', 'update'],
    help: 'Operation types kept in the unpublished store',
  }),
  unpublishedOperationLifetime: opt.duration({
    flag: 'unpublished-operation-lifetime',
    env: ['UNPUBLISHED_OPERATION_LIFETIME'],
    default: '1h',
    help: 'How long an unpublished operation stays resolvable if it is never anchored',
  }),
  resolutionCacheMaxBytes: opt.custom({
    flag: 'resolution-cache-max-bytes',
    type: 'size',
    default: '128mb',
    parse: parseByteSize,
    format: formatByteSize,
    help: 'Estimated heap the resolution cache may take (parsed operations and rendered results per DID, least recently used out first; 0 disables the cache)',
  }),
  resolutionCacheSize: opt.int({
    flag: 'resolution-cache-size',
    default: 20_000,
    min: 0,
    help: 'DIDs the resolution cache holds at most, whatever their size (0 disables the cache); --resolution-cache-max-bytes binds first unless DIDs are small',
  }),
  protocolVersions: opt.enumList(PROTOCOL_VERSION_NAMES, {
    flag: 'sidetree-protocol-versions',
    env: ['SIDETREE_PROTOCOL_VERSIONS'],
    default: ['1.0'],
    help: "did:node protocol versions this node runs, Orb's names (test: its smaller operation and delta limits); an anchor is read under the version its profile names",
  }),
  currentProtocolVersion: opt.enum(PROTOCOL_VERSION_NAMES, {
    flag: 'current-sidetree-protocol-version',
    env: ['CURRENT_SIDETREE_PROTOCOL_VERSION'],
    help: 'The version operations are accepted under and anchors written in; default the listed version of latest genesis time',
  }),
  includePublishedOperations: opt.bool({
    flag: 'include-published-operations-in-metadata',
    env: ['INCLUDE_PUBLISHED_OPERATIONS_IN_METADATA'],
    default: true,
    help: 'List publishedOperations in resolution metadata',
  }),
};

/** The check that goes with the section: the listed protocol versions and the current one agree. */
export function sidetreeOptionsProblem(sidetree: ValuesOf<typeof sidetreeOptions>): string | undefined {
  try {
    ProtocolRegistry.of(sidetree.protocolVersions, sidetree.currentProtocolVersion);
    return undefined;
  } catch (error) {
    return `options --sidetree-protocol-versions / --current-sidetree-protocol-version: ${(error as Error).message}`;
  }
}
