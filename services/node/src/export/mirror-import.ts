import { parseHashlink } from '@anchor/common/encoding';
import { badRequest, errorMessage } from '@anchor/common/errors';
import { CAS_MEDIA, CasStore } from '../cas/cas-store.js';
import type { AnchorObserver } from '../observer/anchor-observer.js';

/** What an import takes: the `anchors` of an export page (items are the anchors' operations and are not needed). */
export interface ImportedAnchor {
  anchor: string;
  hashlink: string;
  linkset: unknown;
  files?: Array<{ hash: string; content: string }>;
}

export interface ImportResult {
  /** Anchors committed by this import. */
  imported: number;
  /** Anchors this node had processed already (a page read twice, or an anchor spanning pages). */
  known: number;
  operations: number;
}

/**
 * Builds a mirror from another node's export (`GET /sidetree/v1/export`): each anchor of a page, in the
 * page's order, goes through this node's observer exactly as an announced anchor does: its linkset must
 * hash to the anchor, its credential's every proof must verify (the signers' DIDs resolved by this node),
 * its batch files (from the page, each checked against its hash before it is kept) must assemble into
 * exactly the DIDs the content object lists; only then is it committed. Nothing the exporter says is taken
 * on trust; a page that fails a check is refused (400) and nothing of the failing anchor is kept but files
 * that hash as named.
 *
 * Anchors are committed in export order (several verified at once, committed in groups: see
 * `AnchorObserver.processInOrder`), so each anchor's parents are already here and the mirror numbers its
 * anchors as the source did.
 */
export class MirrorImport {
  constructor(private readonly deps: { observer: AnchorObserver; cas: CasStore }) {}

  async import(anchors: readonly ImportedAnchor[]): Promise<ImportResult> {
    const result: ImportResult = { imported: 0, known: 0, operations: 0 };
    // Every entry's shape and files are checked before any is taken, so a malformed page keeps nothing.
    const what = (index: number) => `anchors[${index}] (${String(anchors[index]?.anchor)})`;
    for (const [index, entry] of anchors.entries()) {
      checkShape(entry, what(index));
      if (parseHashlink(entry.hashlink).resourceHash !== entry.anchor)
        throw badRequest(`${what(index)}: its hashlink names another anchor`);
    }
    const known = await Promise.all(anchors.map((entry) => this.deps.observer.isProcessed(entry.anchor)));
    const todo: number[] = [];
    const files: Array<{ content: Buffer; mediaType: string }> = [];
    for (const [index, entry] of anchors.entries()) {
      if (known[index] !== undefined) {
        result.known++;
        continue;
      }
      if (entry.files === undefined)
        throw badRequest(
          `${what(index)} has no batch files: an import starts at an anchor's first operation (a page the export gave with "files")`,
        );
      for (const [fileIndex, file] of entry.files.entries()) {
        const content = Buffer.from(file.content, 'base64');
        if (CasStore.hashOf(content) !== file.hash)
          throw badRequest(`${what(index)}: batch file ${fileIndex} does not hash to ${file.hash}`);
        files.push({ content, mediaType: CAS_MEDIA.batchFile });
      }
      todo.push(index);
    }
    if (todo.length === 0) return result;
    await this.deps.cas.writeAll(files);
    const outcomes = await this.deps.observer.processInOrder(
      todo.map((index) => ({
        hashlink: (anchors[index] as ImportedAnchor).hashlink,
        linkset: (anchors[index] as ImportedAnchor).linkset as object,
      })),
      async (event, error) => {
        // The anchors before it are committed; the import stops at the first refusal.
        const index = todo.find((at) => (anchors[at] as ImportedAnchor).hashlink === event.hashlink) ?? -1;
        throw badRequest(`${what(index)} was refused: ${errorMessage(error)}`);
      },
    );
    const records = await Promise.all(
      todo.map((index, at) =>
        outcomes[at] === 'processed'
          ? this.deps.observer.isProcessed((anchors[index] as ImportedAnchor).anchor)
          : undefined,
      ),
    );
    for (const [at, outcome] of outcomes.entries()) {
      if (outcome === 'processed') result.imported++;
      else result.known++;
      result.operations += records[at]?.operationCount ?? 0;
    }
    return result;
  }
}

function checkShape(entry: ImportedAnchor, what: string): void {
  if (typeof entry !== 'object' || entry === null) throw badRequest(`${what} must be an object`);
  if (typeof entry.anchor !== 'string' || typeof entry.hashlink !== 'string')
    throw badRequest(`${what} needs "anchor" and "hashlink" strings`);
  if (typeof entry.linkset !== 'object' || entry.linkset === null) throw badRequest(`${what} needs its "linkset"`);
  if (
    entry.files !== undefined &&
    (!Array.isArray(entry.files) ||
      entry.files.some((file) => typeof file?.hash !== 'string' || typeof file?.content !== 'string'))
  )
    throw badRequest(`${what}: "files" must be a list of {hash, content}`);
  try {
    parseHashlink(entry.hashlink);
  } catch (error) {
    throw badRequest(`${what}: ${errorMessage(error)}`);
  }
}
