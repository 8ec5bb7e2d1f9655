import type { KeyObject } from 'node:crypto';
import { AppError, badRequest } from '@anchor/common/errors';
import { answer, type Answer, type Handler } from '@anchor/common/http';
import { getLogger } from '@anchor/common/log';
import type { Store } from '@anchor/common/storage';
import {
  TLOG_SIZE_MEDIA_TYPE,
  type NoteVerifier,
  checkAddCheckpoint,
  cosignCheckpoint,
  cosignatureKeyHash,
  cosignatureVerifierKey,
  ed25519NoteSign,
  formatTreeSize,
  parseAddCheckpoint,
  parseVerifierKey,
} from '@anchor/common/tlog';

const log = getLogger('vct-witness');

/** The store of the checkpoint a witness holds per log origin (the latest it cosigned). */
export const WITNESS_STORE = 'witness-checkpoints';

export interface WitnessRecord {
  origin: string;
  size: number;
  /** base64 of the root hash. */
  rootHash: string;
  /** The checkpoint note as the log sent it (its signatures), kept as evidence. */
  note: string;
  /** POSIX seconds of the cosignature given for it. */
  cosignedAt: number;
}

export interface WitnessSettings {
  /** The witness's key name (its cosignature lines' name), a schema-less URL by convention. */
  name: string;
  /** The witness's Ed25519 key. */
  privateKey: KeyObject;
  publicKey: Buffer;
  /** The note verifier keys of the logs it witnesses; each key's name is the log's origin. */
  logKeys: readonly string[];
  /** POSIX seconds now (tests fix it). */
  now?: () => number;
}

/**
 * A C2SP tlog-witness: `POST /add-checkpoint` checks a log's checkpoint against the one it holds for the
 * origin (checkAddCheckpoint: the spec's checks), stores the new one in the service's store before it answers,
 * and answers its cosignature/v1 line. Checking and storing are one step per origin: requests of this process
 * wait their turn, and the store's compare-and-set on the held size makes replicas sharing a database refuse
 * the loser of a race (it answers 409 with the size now held) instead of rolling the record back.
 */
export class Witness {
  readonly verifierKey: string;
  private readonly keyHash: number;
  private readonly logs = new Map<string, NoteVerifier[]>();
  private readonly turns = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: Store<WitnessRecord>,
    private readonly settings: WitnessSettings,
  ) {
    this.keyHash = cosignatureKeyHash(settings.name, settings.publicKey);
    this.verifierKey = cosignatureVerifierKey(settings.name, settings.publicKey);
    for (const vkey of settings.logKeys) {
      const verifier = parseVerifierKey(vkey);
      this.logs.set(verifier.name, [...(this.logs.get(verifier.name) ?? []), verifier]);
    }
  }

  get name(): string {
    return this.settings.name;
  }

  /** The origins witnessed. */
  get origins(): string[] {
    return [...this.logs.keys()];
  }

  /** The checkpoint held for an origin. */
  held(origin: string): Promise<WitnessRecord | undefined> {
    return this.store.get(origin);
  }

  readonly addCheckpoint: Handler = async (req) => {
    const body = req.body?.toString('utf8') ?? '';
    if (req.body !== undefined && Buffer.from(body, 'utf8').compare(req.body) !== 0)
      throw badRequest('an add-checkpoint body is UTF-8 text');
    const request = parseAddCheckpoint(body);
    // The origin is read before the turn is taken; a malformed note is refused by the checks themselves.
    const origin = request.note.slice(0, Math.max(0, request.note.indexOf('\n')));
    return this.inTurn(origin, () => this.add(request, origin));
  };

  private async add(request: ReturnType<typeof parseAddCheckpoint>, origin: string): Promise<Answer> {
    const record = this.logs.has(origin) ? await this.store.get(origin) : undefined;
    const held = record && { size: record.size, rootHash: Buffer.from(record.rootHash, 'base64') };
    let decision;
    try {
      decision = checkAddCheckpoint(
        request,
        (o) => this.logs.get(o),
        () => held,
      );
    } catch (error) {
      // A known origin's correctly signed checkpoint that fails the checks may be proof of misbehaviour.
      if (error instanceof AppError && error.status === 422)
        log.warn('refused a checkpoint inconsistent with the one held', {
          origin,
          held: record?.size,
          reason: error.message,
          note: request.note,
        });
      throw error;
    }
    if (!decision.accept) return sizeConflict(decision.heldSize);
    const now = Math.floor((this.settings.now ?? (() => Date.now() / 1000))());
    const next: WitnessRecord = {
      origin,
      size: decision.checkpoint.size,
      rootHash: decision.checkpoint.rootHash.toString('base64'),
      note: request.note,
      cosignedAt: now,
    };
    const stored = record
      ? await this.store.replaceIf(origin, { size: record.size }, next)
      : await this.store.insert(origin, next);
    if (!stored) return sizeConflict((await this.store.get(origin))?.size ?? 0);
    const line = await cosignCheckpoint(
      decision.text,
      { name: this.settings.name, keyHash: this.keyHash, sign: ed25519NoteSign(this.settings.privateKey) },
      now,
    );
    return answer({ text: line });
  }

  private inTurn<T>(origin: string, work: () => Promise<T>): Promise<T> {
    const before = this.turns.get(origin) ?? Promise.resolve();
    const mine = before.then(work, work);
    const settled = mine.catch(() => undefined);
    this.turns.set(origin, settled);
    void settled.then(() => {
      if (this.turns.get(origin) === settled) this.turns.delete(origin);
    });
    return mine;
  }
}

function sizeConflict(size: number): Answer {
  // Bytes, so the kit adds no charset: the spec names this media type exactly.
  return answer({ status: 409, bytes: Buffer.from(formatTreeSize(size)), type: TLOG_SIZE_MEDIA_TYPE });
}
