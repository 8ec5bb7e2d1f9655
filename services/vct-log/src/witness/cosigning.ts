import { errorMessage } from '@anchor/common/errors';
import { peerStatusOf, type HttpClient } from '@anchor/common/http-client';
import { getLogger } from '@anchor/common/log';
import {
  type Cosigner,
  formatAddCheckpoint,
  parseCosignatureLines,
  parseCosignatureVerifierKey,
  parseNote,
  parseTreeSize,
} from '@anchor/common/tlog';
import { CoalescedRounds } from '../coalesced-rounds.js';
import type { TransparencyLog } from '../merkle-log/transparency-log.js';

const log = getLogger('vct-cosigning');

/** A witness the log asks for cosignatures (`--witnesses`): its add-checkpoint URL prefix and cosigner key. */
export interface WitnessEndpoint {
  /** The submission prefix: the log posts `<url>/add-checkpoint`. */
  url: string;
  cosigner: Cosigner;
  /** The vkey as configured (for logs and metrics). */
  vkey: string;
}

/** Reads a `--witnesses` item, `<cosignature vkey>@<http(s) URL>`; a bad one throws, saying why. */
export function parseWitnessEndpoint(item: string): WitnessEndpoint {
  const at = item.search(/@https?:\/\//);
  if (at < 0) throw new Error(`expected <witness vkey>@<http(s) URL>, not ${JSON.stringify(item)}`);
  const vkey = item.slice(0, at);
  const url = item.slice(at + 1).replace(/\/+$/, '');
  if (!URL.canParse(url)) throw new Error(`${JSON.stringify(url)} is not a URL`);
  return { url, cosigner: parseCosignatureVerifierKey(vkey), vkey };
}

/** What the log holds of one witness for one alias: the size it acknowledged, and its cosignature line. */
interface WitnessState {
  /** The size the witness holds for this log (learnt from its answers; 0 until then). */
  size: number;
  /** The checkpoint text it cosigned last and its line. */
  text?: string;
  line?: string;
  /** After a failure: not asked again before this time (ms), the wait doubling from 1 s to a minute. */
  retryAt?: number;
  backoffMs?: number;
}

const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;

export interface CosigningOptions {
  http: HttpClient;
  witnesses: readonly WitnessEndpoint[];
  /** The alias's checkpoint note for its current head (signed by the log). */
  checkpointNote: (log: TransparencyLog) => Promise<string>;
  timeoutMs?: number;
}

/**
 * The log side of C2SP tlog-witness: after each new head, every alias's checkpoint is sent to every witness
 * with a consistency proof from the size that witness last acknowledged (0 until known; a 409 tells it, and
 * the request is sent once more from there), and the cosignature lines received are appended to the alias's
 * checkpoint where it is served. A witness that fails (down, 4xx, a bad line) is logged and asked again after
 * a wait (1 s doubling to a minute): it never stops the log, and its previous line is served only while it
 * signs the checkpoint served.
 */
export class Cosigning {
  private readonly state = new Map<string, WitnessState[]>();
  private readonly rounds = new CoalescedRounds(async () => {
    await Promise.all(this.logs.map((served) => this.cosign(served)));
  });

  constructor(
    private readonly logs: readonly TransparencyLog[],
    private readonly options: CosigningOptions,
  ) {}

  get witnesses(): readonly WitnessEndpoint[] {
    return this.options.witnesses;
  }

  /** The cosignature lines held for an alias's checkpoint text (lines of an older checkpoint are not). */
  linesFor(alias: string, text: string): string {
    return (this.state.get(alias) ?? [])
      .filter((s) => s.text === text && s.line !== undefined)
      .map((s) => s.line)
      .join('');
  }

  /** Asks the witnesses soon (coalesced: one round at a time, one more if asked meanwhile). */
  nudge(): void {
    void this.runNow();
  }

  /** One round now, or after the one in flight; resolves when the witnesses have answered or failed. */
  runNow(): Promise<void> {
    if (this.options.witnesses.length === 0) return Promise.resolve();
    return this.rounds.run();
  }

  /** Lets the round in flight finish, then closes the client's connections. */
  async close(): Promise<void> {
    await this.rounds.close();
    this.options.http.close();
  }

  private async cosign(served: TransparencyLog): Promise<void> {
    const head = served.head();
    let note: string;
    try {
      note = await this.options.checkpointNote(served);
    } catch (error) {
      log.warn('no checkpoint to send to the witnesses', { alias: served.alias, err: errorMessage(error) });
      return;
    }
    const text = parseNote(note).text;
    const states = this.statesOf(served.alias);
    await Promise.all(
      this.options.witnesses.map(async (witness, i) => {
        const state = states[i] as WitnessState;
        if (state.text === text || (state.retryAt ?? 0) > Date.now()) return;
        try {
          const line = await this.ask(witness, served, state, head.size, note, text);
          if (line === undefined) throw new Error('the witness holds a larger tree than this log');
          Object.assign(state, { text, line, size: head.size, retryAt: undefined, backoffMs: undefined });
        } catch (error) {
          // A witness down or refusing is asked again later, not on every round of the sequencer.
          state.backoffMs = Math.min(MAX_BACKOFF_MS, (state.backoffMs ?? FIRST_BACKOFF_MS / 2) * 2);
          state.retryAt = Date.now() + state.backoffMs;
          log.warn('a witness did not cosign the checkpoint; the log goes on without its cosignature', {
            alias: served.alias,
            witness: witness.url,
            size: head.size,
            status: peerStatusOf(error),
            err: errorMessage(error),
          });
        }
      }),
    );
  }

  /** Posts add-checkpoint from the size believed held, and once more from the size a 409 names. */
  private async ask(
    witness: WitnessEndpoint,
    served: TransparencyLog,
    state: WitnessState,
    size: number,
    note: string,
    text: string,
  ): Promise<string | undefined> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const oldSize = Math.min(state.size, size);
      const proof = await served.consistencyProof(oldSize, size);
      const body = formatAddCheckpoint({ oldSize, proof, note });
      const reply = await this.options.http.request<string>(`${witness.url}/add-checkpoint`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'text/plain' },
        responseType: 'text',
        answerStatuses: [409],
        retry: false,
        timeoutMs: this.options.timeoutMs ?? 10_000,
      });
      if (reply.status === 409) {
        const held = parseTreeSize(reply.data);
        // A witness holding a larger tree than this log has seen another (or a rolled-back) view of it.
        if (held > size) {
          log.error('a witness holds a larger tree than this log: another view of the log, or a rollback', {
            alias: served.alias,
            witness: witness.url,
            witnessSize: held,
            size,
          });
          return undefined;
        }
        state.size = held;
        continue;
      }
      const [cosignature] = parseCosignatureLines(text, reply.data, [witness.cosigner]);
      if (!cosignature) throw new Error(`the answer holds no cosignature by ${witness.vkey}`);
      return cosignature.line;
    }
    throw new Error('the witness answered 409 twice');
  }

  private statesOf(alias: string): WitnessState[] {
    let states = this.state.get(alias);
    if (!states) {
      states = this.options.witnesses.map(() => ({ size: 0 }));
      this.state.set(alias, states);
    }
    return states;
  }
}
