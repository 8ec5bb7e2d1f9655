import { AppError, errorMessage, permanent } from '../errors/index.js';
import { createHttpClient, type HttpClient } from '../http-client/index.js';
import { canonicalize, type DocumentLoader } from '../jsonld/index.js';
import { leafHash, verifyConsistency, verifyInclusion, type MerkleTree } from '../merkle/index.js';
import {
  buildLeafInput,
  envelopeProblem,
  logIdOf,
  treeHeadSignaturePayload,
  vcEntryOf,
  vcTimestampSignaturePayload,
  type AddVcResponse,
  type SignedTreeHead,
} from '../vct/index.js';
import {
  createWebFingerClient,
  LEDGER_TYPE_VCT_V1,
  ledgerTypeOf,
  publicKeyOf,
  type WebFingerClient,
} from '../webfinger/index.js';

export interface VctLogClientOptions {
  httpClient?: HttpClient;
  webFinger?: WebFingerClient;
  /** The log's read and write bearer tokens (`--api-read-token` / `--api-write-token` of the log). */
  readToken?: string | undefined;
  writeToken?: string | undefined;
  /** Terms of the credentials this client logs that no context defines (the anchor credential's). */
  allowUndefinedTerms?: readonly string[];
  /** Contexts of the credentials (a service's operator contexts); default the bundled ones. */
  documentLoader?: DocumentLoader;
}

/** An inclusion proof the log gave, checked against a signed tree head. */
export interface VerifiedInclusion {
  leafIndex: number;
  treeSize: number;
  leafHash: Buffer;
  auditPath: Buffer[];
}

/**
 * A client of a VCT transparency log (trustbloc vct wire format, vct-kms.md §A): adds credentials and checks
 * the log's promise (log id and timestamp signature) against the key the log publishes through WebFinger,
 * reads signed tree heads (signature checked), and fetches and verifies consistency and inclusion proofs.
 * `logUrl` is always the log alias URL (`https://vct.example.com/maple2021`).
 */
export class VctLogClient {
  private readonly http: HttpClient;
  private readonly webFinger: WebFingerClient;

  constructor(private readonly options: VctLogClientOptions = {}) {
    this.http = options.httpClient ?? createHttpClient({ timeoutMs: 10_000 });
    this.webFinger = options.webFinger ?? createWebFingerClient({ httpClient: this.http });
  }

  /**
   * Logs `credential` (sent without proofs) and returns the checked promise. Network trouble and 5xx are
   * retryable AppErrors; a bad signature, another log's id, or a 4xx is permanent.
   */
  async addCredential(logUrl: string, credential: Record<string, unknown>): Promise<AddVcResponse> {
    const { proof: _proof, ...unsigned } = credential;
    const { data } = await this.http.post<AddVcResponse>(`${logUrl}/v1/add-vc`, unsigned, this.token('write'));
    if (
      typeof data !== 'object' ||
      data === null ||
      !Number.isSafeInteger(data.timestamp) ||
      data.timestamp < 0 ||
      typeof data.signature !== 'string' ||
      typeof data.id !== 'string'
    ) {
      throw permanent(`log ${logUrl} answered add-vc with an unexpected body`);
    }
    const publicKey = await this.publicKey(logUrl);
    const logId = logIdOf(publicKey).toString('base64');
    if (data.id !== logId)
      throw permanent(`log ${logUrl} answered with log id ${data.id}, but its WebFinger key gives ${logId}`);
    const payload = vcTimestampSignaturePayload(data.timestamp, vcEntryOf(await this.nquadsOf(unsigned)));
    if (envelopeProblem(data.signature, payload, publicKey) !== undefined) {
      // A cached key may be stale after a log key rotation: look it up again once before giving up.
      const retried = envelopeProblem(data.signature, payload, await this.freshPublicKey(logUrl));
      if (retried !== undefined) throw permanent(`log ${logUrl} timestamp signature check failed: ${retried}`);
    }
    return data;
  }

  /** The current signed tree head, its signature checked with the log's WebFinger key. */
  async signedTreeHead(logUrl: string): Promise<SignedTreeHead> {
    const { sth, problem } = await this.checkedTreeHead(logUrl);
    if (problem !== undefined) throw permanent(`log ${logUrl}: ${problem}`);
    return sth;
  }

  /**
   * The current tree head and what is wrong with its signature (undefined when it verifies with the log's
   * WebFinger key, looked up afresh once before a problem is reported), for a monitor that keeps a badly
   * signed head as evidence. Network trouble and 5xx are retryable AppErrors; an answer that is not a tree
   * head at all (it proves nothing) is a permanent one.
   */
  async checkedTreeHead(
    logUrl: string,
  ): Promise<{ sth: SignedTreeHead; problem: string | undefined; publicKey: Buffer }> {
    const { data } = await this.http.get<unknown>(`${logUrl}/v1/get-sth`, this.token('read'));
    if (!isTreeHead(data))
      throw permanent(`log ${logUrl} answered get-sth with something that is not a signed tree head`);
    const publicKey = await this.publicKey(logUrl);
    if (sthProblem(data, publicKey) === undefined) return { sth: data, problem: undefined, publicKey };
    const fresh = await this.freshPublicKey(logUrl);
    return { sth: data, problem: sthProblem(data, fresh), publicKey: fresh };
  }

  /** The log's C2SP checkpoint note (tlog-tiles `<logUrl>/checkpoint`), with the cosignatures it serves. */
  async checkpoint(logUrl: string): Promise<string> {
    const { data } = await this.http.get<string>(`${logUrl}/checkpoint`, {
      ...this.token('read'),
      responseType: 'text',
    });
    return data;
  }

  /** Checks an STH someone holds (e.g. one saved earlier) against the log's key: undefined when it verifies. */
  async sthProblem(logUrl: string, sth: SignedTreeHead): Promise<string | undefined> {
    return sthProblem(sth, await this.publicKey(logUrl));
  }

  /**
   * Fetches the consistency proof between two tree heads of the log and verifies it: a log that rewrote its
   * history (or a forged STH) fails with a permanent error saying so.
   */
  async verifyConsistency(logUrl: string, first: SignedTreeHead, second: SignedTreeHead): Promise<Buffer[]> {
    if (first.tree_size > second.tree_size) return this.verifyConsistency(logUrl, second, first);
    let proof: Buffer[] = [];
    if (first.tree_size !== second.tree_size && first.tree_size > 0) {
      const { data } = await this.http.get<{ consistency?: unknown }>(
        `${logUrl}/v1/get-sth-consistency?first=${first.tree_size}&second=${second.tree_size}`,
        this.token('read'),
      );
      proof = base64List(data?.consistency, 'consistency');
    }
    const ok = verifyConsistency(
      first.tree_size,
      second.tree_size,
      Buffer.from(first.sha256_root_hash, 'base64'),
      Buffer.from(second.sha256_root_hash, 'base64'),
      proof,
    );
    if (!ok)
      // The proof travels with the error: a monitor keeps it as evidence.
      throw new AppError(
        'unprocessable',
        `log ${logUrl}: the tree of size ${second.tree_size} is not consistent with the tree of size ${first.tree_size}`,
        { retryable: false, details: { consistency: proof.map((hash) => hash.toString('base64')) } },
      );
    return proof;
  }

  /** The leaf hash of a credential logged at `timestamp` (trustbloc/vct's client `CalculateLeafHash`). */
  async leafHashOf(credential: Record<string, unknown>, timestamp: number): Promise<Buffer> {
    const { proof: _proof, ...unsigned } = credential;
    return leafHash(Buffer.from(buildLeafInput(timestamp, vcEntryOf(await this.nquadsOf(unsigned)))));
  }

  /**
   * Proves that a leaf is in the tree of `sth` (get-proof-by-hash) and verifies the audit path against the
   * STH's root. A leaf not (yet) in the tree is a not-found AppError from the log.
   */
  async verifyInclusion(logUrl: string, hash: Uint8Array, sth: SignedTreeHead): Promise<VerifiedInclusion> {
    const query = `hash=${encodeURIComponent(Buffer.from(hash).toString('base64'))}&tree_size=${sth.tree_size}`;
    const { data } = await this.http.get<{ leaf_index?: unknown; audit_path?: unknown }>(
      `${logUrl}/v1/get-proof-by-hash?${query}`,
      this.token('read'),
    );
    const leafIndex = data?.leaf_index;
    if (!Number.isSafeInteger(leafIndex) || (leafIndex as number) < 0)
      throw permanent(`log ${logUrl} answered get-proof-by-hash without a leaf index`);
    const auditPath = data?.audit_path === null ? [] : base64List(data?.audit_path, 'audit_path');
    const root = Buffer.from(sth.sha256_root_hash, 'base64');
    if (!verifyInclusion(leafIndex as number, sth.tree_size, hash, auditPath, root))
      throw permanent(
        `log ${logUrl}: the inclusion proof does not lead to the root of the tree of size ${sth.tree_size}`,
      );
    return { leafIndex: leafIndex as number, treeSize: sth.tree_size, leafHash: Buffer.from(hash), auditPath };
  }

  /**
   * The leaf inputs of entries `start`..`end` (inclusive), as get-entries gives them: the log may answer
   * fewer than asked (it caps a page), never none for a range inside its tree.
   */
  async entries(logUrl: string, start: number, end: number): Promise<Buffer[]> {
    const { data } = await this.http.get<{ entries?: unknown }>(
      `${logUrl}/v1/get-entries?start=${start}&end=${end}`,
      this.token('read'),
    );
    const entries = data?.entries;
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > end - start + 1)
      throw permanent(`log ${logUrl} answered get-entries ${start}..${end} without its entries`);
    return entries.map((entry: { leaf_input?: unknown } | null, index) => {
      if (typeof entry?.leaf_input !== 'string')
        throw permanent(`log ${logUrl}: get-entries entry ${start + index} has no leaf_input`);
      return Buffer.from(entry.leaf_input, 'base64');
    });
  }

  /**
   * Appends the log's leaves from `tree.size` up to `treeSize` to `tree`, fetched with get-entries in pages
   * of at most `pageSize`, so the caller can compare `tree.root(treeSize)` with a signed tree head.
   */
  async appendEntries(logUrl: string, tree: MerkleTree, treeSize: number, pageSize: number): Promise<MerkleTree> {
    while (tree.size < treeSize) {
      const end = Math.min(tree.size + pageSize, treeSize) - 1;
      for (const leafInput of await this.entries(logUrl, tree.size, end)) tree.append(leafHash(leafInput));
    }
    return tree;
  }

  /** The log's public key bytes from WebFinger (`https://trustbloc.dev/ns/public-key`), its ledger type checked. */
  async publicKey(logUrl: string): Promise<Buffer> {
    let jrd;
    try {
      jrd = await this.webFinger.lookup(new URL(logUrl).origin, logUrl);
    } catch (error) {
      if (error instanceof AppError)
        throw new AppError(error.code, `WebFinger lookup of log ${logUrl} failed: ${error.message}`, {
          cause: error,
          retryable: error.retryable,
        });
      throw error;
    }
    const ledgerType = ledgerTypeOf(jrd);
    if (ledgerType !== undefined && ledgerType !== LEDGER_TYPE_VCT_V1)
      throw permanent(`log ${logUrl} announces ledger type ${ledgerType}, not ${LEDGER_TYPE_VCT_V1}`);
    const key = publicKeyOf(jrd);
    if (!key) throw permanent(`log ${logUrl} publishes no public key in WebFinger`);
    return key;
  }

  /** The log service's own health (`<origin>/healthcheck`): "success" or the reason it is not healthy. */
  async health(logUrl: string): Promise<string> {
    try {
      await this.http.get(`${new URL(logUrl).origin}/healthcheck`, { timeoutMs: 3_000, ...this.token('read') });
      return 'success';
    } catch (error) {
      return `log ${logUrl} is unhealthy: ${errorMessage(error)}`;
    }
  }

  private freshPublicKey(logUrl: string): Promise<Buffer> {
    this.webFinger.forget(new URL(logUrl).origin, logUrl);
    return this.publicKey(logUrl);
  }

  private nquadsOf(unsigned: Record<string, unknown>): Promise<string> {
    return canonicalize(
      { ...unsigned, proof: null },
      {
        allowUndefinedTerms: [...(this.options.allowUndefinedTerms ?? [])],
        ...(this.options.documentLoader === undefined ? {} : { documentLoader: this.options.documentLoader }),
      },
    );
  }

  private token(kind: 'read' | 'write'): { token?: string } {
    const token = kind === 'read' ? this.options.readToken : this.options.writeToken;
    return token === undefined ? {} : { token };
  }
}

function isTreeHead(value: unknown): value is SignedTreeHead {
  const sth = value as SignedTreeHead | null | undefined;
  return (
    typeof sth === 'object' &&
    sth !== null &&
    Number.isSafeInteger(sth.tree_size) &&
    Number.isSafeInteger(sth.timestamp) &&
    typeof sth.sha256_root_hash === 'string' &&
    typeof sth.tree_head_signature === 'string'
  );
}

function sthProblem(sth: unknown, publicKey: Buffer): string | undefined {
  if (!isTreeHead(sth)) return 'the signed tree head is malformed';
  const problem = envelopeProblem(
    sth.tree_head_signature,
    treeHeadSignaturePayload(sth.timestamp, sth.tree_size, Buffer.from(sth.sha256_root_hash, 'base64')),
    publicKey,
  );
  return problem === undefined ? undefined : `the signed tree head's signature does not verify: ${problem}`;
}

function base64List(value: unknown, what: string): Buffer[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw permanent(`the log's ${what} is not a list of base64 hashes`);
  return value.map((item: string) => Buffer.from(item, 'base64'));
}
