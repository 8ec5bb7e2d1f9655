import { badRequest, internal } from '@anchor/common/errors';
import { parseHashlink } from '@anchor/common/encoding';
import type { ProtocolRegistry } from '@anchor/sidetree';
import { readAnchorLinkset } from '../anchor-model/anchor-linkset.js';
import { CasStore } from '../cas/cas-store.js';
import type { ContentResolver } from '../cas/content-resolver.js';
import type { PublishedOperation } from '../operations/operation-records.js';
import type { OperationStores } from '../operations/operation-stores.js';
import type { AnchorRecord, AnchorRecords } from '../anchor-model/anchor-records.js';
import { batchFileBytes, fetchBatchFiles } from '../observer/batch-files.js';
import { getManyInSlices } from '../util/read-in-slices.js';

/** Most operations one page of the export holds (did:plc's `/export` has the same bound). */
export const EXPORT_MAX_COUNT = 1_000;
/** Anchors kept decoded between pages: a reader going through the export reads each anchor's pages in turn. */
const ANCHORS_KEPT = 4;
/** Claims read per step of the sequence. */
const CLAIMS_PER_READ = 64;

/**
 * Where an export reader is: after operation `operationIndex` of the anchor with `transactionNumber`; the
 * start is `{0, -1}` (transaction numbers begin at 1). Written `<transactionNumber>:<operationIndex>`.
 */
export interface ExportCursor {
  transactionNumber: number;
  operationIndex: number;
}

export const EXPORT_START: ExportCursor = { transactionNumber: 0, operationIndex: -1 };

export function formatCursor(cursor: ExportCursor): string {
  return cursor.transactionNumber === 0 ? '' : `${cursor.transactionNumber}:${cursor.operationIndex}`;
}

/** `after` as a cursor: empty or absent is the start; anything but `<n>:<i>` is a 400. */
export function parseCursor(text: string | undefined): ExportCursor {
  if (text === undefined || text === '') return EXPORT_START;
  const match = /^(\d{1,15}):(\d{1,6})$/.exec(text);
  if (!match)
    throw badRequest(
      `'after' must be a cursor of this export, <transaction number>:<operation index> (e.g. 42:17), or empty for the start; got '${text}'`,
    );
  const transactionNumber = Number(match[1]);
  if (transactionNumber < 1) throw badRequest(`'after' names transaction number 0; numbers start at 1`);
  return { transactionNumber, operationIndex: Number(match[2]) };
}

/** One exported anchor: what a mirror checks the page's operations against. */
export interface ExportedAnchor {
  /** The anchor hash (`uEi…`): the resource hash of the witnessed linkset. */
  anchor: string;
  /** `hl:<hash>:<links>` as this node knows the anchor. */
  hashlink: string;
  transactionNumber: number;
  transactionTime: number;
  operationCount: number;
  /** Anchors of earlier operations of the batch's DIDs (`related.up`), exported before this one. */
  parents: string[];
  /** The witnessed anchor linkset (JCS text): the content object, the core index link, and the anchor credential with every proof. */
  linksetJson: string;
  /**
   * The batch files (gzip, base64) with their hashes, on the page that holds the anchor's operation 0: with
   * them a mirror re-derives every operation and checks it is the one the credential anchors.
   */
  files?: Array<{ hash: string; content: string }>;
}

/** One exported operation. */
export interface ExportedOperation {
  /** Resume here: the next page starts after this operation. */
  cursor: string;
  suffix: string;
  type: PublishedOperation['type'];
  /** The operation request as anchored (JCS JSON text). */
  requestJson: string;
  anchor: string;
  transactionNumber: number;
  transactionTime: number;
  operationIndex: number;
  protocolVersion: number;
  anchorOrigin?: string;
}

export interface ExportPage {
  items: ExportedOperation[];
  anchors: ExportedAnchor[];
  /** The last item's cursor, or the one asked for when the page is empty. */
  cursor: string;
  /** Whether more operations were there to export when the page was read. */
  more: boolean;
  /** The highest transaction number this node has claimed: how far the export goes now (for progress). */
  latestTransactionNumber: number;
}

interface LoadedAnchor {
  exported: Omit<ExportedAnchor, 'files'>;
  /** The anchor's DIDs in operation order. */
  suffixes: string[];
  coreIndexHashlink: string;
  protocolVersion: number;
}

/**
 * The node's operations for mirrors (did:plc's `/export` for did:node): every operation of every processed
 * anchor, in anchor order (transaction number, then position in the batch), by a monotonic cursor. Each page
 * carries, for the anchors its operations belong to, the witnessed linkset (so the credential with its
 * proofs) and, where the anchor begins, its batch files: what a mirror needs to verify every operation
 * without trusting this node.
 *
 * Reads are keyed: a page costs one range read of `anchor-sequence` and one keyed read per operation,
 * whatever the size of the store. The export stops at the first transaction number whose anchor is not
 * committed yet (numbers are claimed before an anchor's operations are written), so a cursor never moves past
 * an operation it would later miss; rejected anchors hold none.
 */
export class OperationExport {
  private readonly loaded = new Map<string, LoadedAnchor>();

  constructor(
    private readonly deps: {
      stores: OperationStores;
      records: AnchorRecords;
      cas: CasStore;
      content: ContentResolver;
      namespace: string;
      protocols: ProtocolRegistry;
    },
  ) {}

  async page(after: ExportCursor, count: number): Promise<ExportPage> {
    if (!Number.isInteger(count) || count < 1 || count > EXPORT_MAX_COUNT)
      throw badRequest(`'count' must be an integer from 1 to ${EXPORT_MAX_COUNT}`);
    const items: ExportedOperation[] = [];
    const anchors: ExportedAnchor[] = [];
    let position = after;
    let more = false;
    scan: for (let from = Math.max(1, after.transactionNumber); ;) {
      const claims = (
        await this.deps.records.sequence.query({
          where: { transactionNumber: { gte: from } },
          limit: CLAIMS_PER_READ,
        })
      ).items;
      if (claims.length === 0) break;
      for (const { value: claim } of claims) {
        from = claim.transactionNumber + 1;
        const record = await this.deps.records.anchors.get(claim.anchorHash);
        // Claimed but not committed yet: nothing past it may be exported before it is.
        if (record === undefined) break scan;
        if (record.status !== 'processed' || record.transactionNumber !== claim.transactionNumber) continue;
        const firstIndex = claim.transactionNumber === after.transactionNumber ? after.operationIndex + 1 : 0;
        const operationCount = record.operationCount ?? 0;
        if (firstIndex >= operationCount) continue;
        if (items.length >= count) {
          more = true;
          break scan;
        }
        const anchor = await this.load(claim.anchorHash, record);
        const take = Math.min(operationCount - firstIndex, count - items.length);
        const operations = await this.operations(anchor, firstIndex, take);
        for (const operation of operations) {
          const item: ExportedOperation = {
            cursor: formatCursor({
              transactionNumber: claim.transactionNumber,
              operationIndex: operation.operationIndex,
            }),
            suffix: operation.suffix,
            type: operation.type,
            requestJson: operation.request,
            anchor: claim.anchorHash,
            transactionNumber: operation.transactionNumber,
            transactionTime: operation.transactionTime,
            operationIndex: operation.operationIndex,
            protocolVersion: operation.protocolVersion,
          };
          if (operation.anchorOrigin !== undefined) item.anchorOrigin = operation.anchorOrigin;
          items.push(item);
        }
        anchors.push(firstIndex === 0 ? { ...anchor.exported, files: await this.files(anchor) } : anchor.exported);
        position = { transactionNumber: claim.transactionNumber, operationIndex: firstIndex + take - 1 };
        if (firstIndex + take < operationCount) {
          more = true;
          break scan;
        }
      }
    }
    const latestTransactionNumber = await this.deps.records.lastClaimedNumber();
    return { items, anchors, cursor: formatCursor(position), more, latestTransactionNumber };
  }

  /** The anchor's linkset, read and checked once, and its DIDs in operation order. */
  private async load(anchorHash: string, record: AnchorRecord): Promise<LoadedAnchor> {
    const kept = this.loaded.get(anchorHash);
    if (kept) return kept;
    const linkset = await this.deps.cas.read(anchorHash);
    if (!linkset) throw internal(`the linkset of processed anchor ${anchorHash} is not in the CAS`);
    const linksetJson = linkset.content.toString('utf8');
    const read = readAnchorLinkset(JSON.parse(linksetJson), this.deps.namespace);
    const loaded: LoadedAnchor = {
      exported: {
        anchor: anchorHash,
        hashlink: record.hashlink,
        transactionNumber: record.transactionNumber ?? 0,
        transactionTime: record.transactionTime ?? 0,
        operationCount: record.operationCount ?? 0,
        parents: (record.parents ?? []).map((parent) => parseHashlink(parent).resourceHash),
        linksetJson,
      },
      suffixes: read.items.map((item) => item.suffix),
      coreIndexHashlink: read.coreIndexHashlink,
      protocolVersion: read.protocolVersion,
    };
    this.loaded.set(anchorHash, loaded);
    if (this.loaded.size > ANCHORS_KEPT) this.loaded.delete(this.loaded.keys().next().value as string);
    return loaded;
  }

  /**
   * Operations `first .. first + count - 1` of an anchor. The content object lists the DIDs in batch order
   * for this node's anchors; where it does not (another node's may list them otherwise), the whole anchor is
   * read once and its order kept.
   */
  private async operations(anchor: LoadedAnchor, first: number, count: number): Promise<PublishedOperation[]> {
    const read = async (suffixes: readonly string[]) =>
      getManyInSlices(
        this.deps.stores.published,
        suffixes.map((suffix) => `${suffix}:${anchor.exported.anchor}`),
      );
    const slice = await read(anchor.suffixes.slice(first, first + count));
    if (slice.every((operation, offset) => operation?.operationIndex === first + offset))
      return slice as PublishedOperation[];
    const all = await read(anchor.suffixes);
    if (all.some((operation) => operation === undefined))
      throw internal(`operations of processed anchor ${anchor.exported.anchor} are missing from the store`);
    const ordered = (all as PublishedOperation[]).sort((a, b) => a.operationIndex - b.operationIndex);
    if (ordered.some((operation, index) => operation.operationIndex !== index))
      throw internal(`the operations of anchor ${anchor.exported.anchor} are not numbered 0..${ordered.length - 1}`);
    anchor.suffixes = ordered.map((operation) => operation.suffix);
    return ordered.slice(first, first + count);
  }

  private async files(anchor: LoadedAnchor): Promise<Array<{ hash: string; content: string }>> {
    const files = await fetchBatchFiles(this.deps.content, {
      coreIndexHashlink: anchor.coreIndexHashlink,
      sources: [],
      protocol: this.deps.protocols.forAnchor(anchor.protocolVersion),
    });
    return batchFileBytes(files).map((bytes) => ({ hash: CasStore.hashOf(bytes), content: bytes.toString('base64') }));
  }
}

/**
 * The page as JSON text. The requests and linksets are stored as JCS text and go out as they are (no parse
 * and re-serialisation of a thousand operations a page).
 */
export function exportPageJson(page: ExportPage): string {
  const items = page.items.map(({ requestJson, ...item }) => {
    const head = JSON.stringify({
      cursor: item.cursor,
      suffix: item.suffix,
      type: item.type,
      anchor: item.anchor,
      transactionNumber: item.transactionNumber,
      transactionTime: item.transactionTime,
      operationIndex: item.operationIndex,
      protocolVersion: item.protocolVersion,
      ...(item.anchorOrigin !== undefined ? { anchorOrigin: item.anchorOrigin } : {}),
    });
    return `${head.slice(0, -1)},"operation":${requestJson}}`;
  });
  const anchors = page.anchors.map(({ linksetJson, ...anchor }) => {
    const head = JSON.stringify(anchor);
    return `${head.slice(0, -1)},"linkset":${linksetJson}}`;
  });
  return `{"items":[${items.join(',')}],"anchors":[${anchors.join(',')}],"cursor":${JSON.stringify(page.cursor)},"more":${page.more},"latestTransactionNumber":${page.latestTransactionNumber}}`;
}
