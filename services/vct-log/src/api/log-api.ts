import { badRequest, internal, notFound } from '@anchor/common/errors';
import { base64Decode } from '@anchor/common/encoding';
import { HASH_SIZE } from '@anchor/common/merkle';
import type { CredentialChecker } from '../credentials/credential-checker.js';
import { parseLeafInput, STRUCTURE_VERSION, vcTimestampSignaturePayload } from '@anchor/common/vct';
import type { VctMetrics } from '../metrics.js';
import type { LogSigner } from '../signing/log-signer.js';
import type { SignedTreeHeads } from '../signing/signed-tree-heads.js';
import type { LogRegistry } from './log-access.js';
import { int64Param, type QueryParams } from './query-params.js';

export interface LogApiOptions {
  logs: LogRegistry;
  checker: CredentialChecker;
  signer: LogSigner;
  treeHeads: SignedTreeHeads;
  metrics: VctMetrics;
  /** Most entries one get-entries answers (trustbloc/vct's 1,000); longer ranges are cut short. */
  maxGetEntries: number;
}

/**
 * The log API of `/<alias>/v1/...`, independent of the HTTP layer: each operation takes the alias, the
 * query and (add-vc) the body, and returns the JSON text of its 200 answer, as trustbloc/vct's
 * `json.Encoder` writes it (compact, ending in a newline; Go's nil slices as `null`), or throws an
 * AppError. Checks run in trustbloc/vct's order (vct-kms.md §A.3): query parameters are parsed and
 * validated first, then the alias's permission, then anything else (the hash's base64). Sizes beyond the
 * committed tree are 4xx, never 500.
 */
export class LogApi {
  constructor(private readonly options: LogApiOptions) {}

  /** POST /<alias>/v1/add-vc: the answer is sent only once the entry is stored (see TransparencyLog.accept). */
  async addVc(alias: string, body: string | undefined): Promise<string> {
    const { logs, checker, signer, metrics } = this.options;
    const served = logs.require(alias, 'write');
    const checking = process.hrtime.bigint();
    const { entry, extraData } = await checker.check(body, served.issuers, Date.now());
    metrics.parseCredentialSeconds.observe({ alias }, Number(process.hrtime.bigint() - checking) / 1e9);
    const accepted = await served.log.accept({ ...entry, extraData });
    let signature = entry.signature;
    if (accepted.duplicate) {
      // The answer covers the logged leaf, whose timestamp is the first submission's.
      metrics.duplicates.inc({ alias });
      signature = await signer.signEnvelope(
        vcTimestampSignaturePayload(accepted.timestamp, parseLeafInput(entry.leafInput).timestamped_entry.vc_entry),
      );
    }
    // base64 of the leaf's extensions, which are always empty.
    return json({
      svct_version: STRUCTURE_VERSION,
      id: signer.logIdBase64,
      timestamp: accepted.timestamp,
      extensions: '',
      signature,
    });
  }

  async getSth(alias: string): Promise<string> {
    const { log } = this.options.logs.require(alias, 'read');
    return this.options.treeHeads.body(alias, await log.currentHead());
  }

  async getSthConsistency(alias: string, query: QueryParams): Promise<string> {
    const first = int64Param(query, 'first');
    const second = int64Param(query, 'second');
    const where = 'validate GetSTHConsistency request: validation failed: first_tree_size';
    if (first < 0n || second < 0n)
      throw badRequest(`${where} ${first} and second_tree_size ${second} values must be >= 0`);
    if (first > second)
      throw badRequest(`${where} ${first} and second_tree_size ${second} values is not a valid range`);
    const { log } = this.options.logs.require(alias, 'read');
    if (first === 0n) return json({ consistency: null });
    const size = (await log.currentHead()).size;
    if (second > BigInt(size))
      throw badRequest(`validation failed: need tree size: ${second} for proof but only got: ${size}`);
    return json({ consistency: hashesOrNull(await log.consistencyProof(Number(first), Number(second))) });
  }

  async getProofByHash(alias: string, query: QueryParams): Promise<string> {
    const treeSize = int64Param(query, 'tree_size');
    if (treeSize < 1n)
      throw badRequest('validate GetProofByHash request: validation failed: tree_size value must be greater than zero');
    const { log } = this.options.logs.require(alias, 'read');
    const hash = leafHashParam(query.get('hash'));
    const size = (await log.currentHead()).size;
    if (treeSize > BigInt(size)) throw notFound(`not found: got tree size: ${size} but we expected: ${treeSize}`);
    const index = await log.indexOfLeafHash(hash);
    if (index === undefined || BigInt(index) >= treeSize)
      throw notFound(`not found: no leaf with hash ${hash.toString('base64')} in the tree of size ${treeSize}`);
    return json({ leaf_index: index, audit_path: hashesOrNull(await log.inclusionProof(index, Number(treeSize))) });
  }

  async getEntries(alias: string, query: QueryParams): Promise<string> {
    const start = int64Param(query, 'start');
    let end = int64Param(query, 'end');
    const where = 'validate GetEntries request: validation failed: start';
    if (start < 0n || end < 0n) throw badRequest(`${where} ${start} and end ${end} values must be >= 0`);
    if (start > end) throw badRequest(`${where} ${start} and end ${end} values is not a valid range`);
    const { log } = this.options.logs.require(alias, 'read');
    const size = BigInt((await log.currentHead()).size);
    if (start >= size) throw badRequest(`need tree size: ${start + 1n} to get leaves but only got: ${size}`);
    // The range is cut at the cap and at the tree's end; clients page on from the last entry they got.
    const cap = BigInt(this.options.maxGetEntries);
    if (end - start + 1n > cap) end = start + cap - 1n;
    if (end >= size) end = size - 1n;
    const entries = await log.entries(Number(start), Number(end));
    return json({
      entries: entries.map((entry) => ({
        leaf_input: Buffer.from(entry.leafInput, 'utf8').toString('base64'),
        extra_data: entry.extraData,
      })),
    });
  }

  async getEntryAndProof(alias: string, query: QueryParams): Promise<string> {
    const leafIndex = int64Param(query, 'leaf_index');
    const treeSize = int64Param(query, 'tree_size');
    const where = 'validate GetEntryAndProof request: validation failed:';
    if (treeSize < 1n) throw badRequest(`${where} tree_size value must be greater than zero`);
    if (leafIndex < 0n) throw badRequest(`${where} leaf_index must be greater than or equal to zero`);
    if (leafIndex >= treeSize) throw badRequest(`${where} leaf_index must be less than tree_size`);
    const { log } = this.options.logs.require(alias, 'read');
    const size = (await log.currentHead()).size;
    if (treeSize > BigInt(size)) throw badRequest(`bad request: need tree size: ${treeSize} for proof, got: ${size}`);
    const [entry] = await log.entries(Number(leafIndex), Number(leafIndex));
    if (!entry) throw internal(`entry ${leafIndex} is missing`);
    return json({
      leaf_input: Buffer.from(entry.leafInput, 'utf8').toString('base64'),
      extra_data: entry.extraData,
      audit_path: hashesOrNull(await log.inclusionProof(Number(leafIndex), Number(treeSize))),
    });
  }

  getIssuers(alias: string): string {
    const { definition } = this.options.logs.require(alias, 'read');
    return json(definition.issuers.length > 0 ? definition.issuers : null);
  }
}

function json(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** Go encodes a nil `[][]byte` as `null`; trustbloc/vct's proofs without nodes come out that way. */
function hashesOrNull(hashes: readonly Uint8Array[]): string[] | null {
  return hashes.length === 0 ? null : hashes.map((hash) => Buffer.from(hash).toString('base64'));
}

/**
 * The `hash` parameter: standard padded base64 of a 32-byte leaf hash. A space stands for a `+` the client
 * forgot to URL-encode (a space is never base64, so the reading is unambiguous).
 */
function leafHashParam(raw: string | null): Buffer {
  const text = (raw ?? '').replace(/ /g, '+');
  let hash: Buffer;
  try {
    hash = base64Decode(text);
  } catch {
    throw badRequest(`invalid base64 hash: ${JSON.stringify(raw ?? '')} is not standard padded base64`);
  }
  if (hash.length !== HASH_SIZE)
    throw badRequest(`invalid base64 hash: a leaf hash is ${HASH_SIZE} bytes, got ${hash.length}`);
  return hash;
}
