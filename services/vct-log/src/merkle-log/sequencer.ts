import { getLogger } from '@anchor/common/log';
import { isFenced, StoreLease, type StoreProvider } from '@anchor/common/storage';
import type { IntegrationResult, TransparencyLog } from './transparency-log.js';

const log = getLogger('vct-sequencer');

/**
 * Which replica integrates, when several share one MongoDB. Every integration batch is written through the
 * lease's fenced write (its first operation is the lease chain's next link), so a replica that lost the lease
 * has its tree heads refused by the store; and an integration batch inserts its entries if absent besides.
 */
export function openSequencerLease(provider: StoreProvider, holder: string, durationMs: number): Promise<StoreLease> {
  return StoreLease.open(provider, { name: 'sequencer', holder, durationMs });
}

export interface SequencerOptions {
  /** Time between integration rounds (ms). */
  intervalMs: number;
  /** Most entries per store batch; a backlog is drained in several batches within one round. */
  batchSize: number;
  maxRootAgeMs: number;
  /** When set, only the lease holder integrates; the other replicas follow the stored heads. */
  lease?: StoreLease;
  onIntegrated?: (log: TransparencyLog, result: IntegrationResult, seconds: number) => void;
  onRoundFailed?: (log: TransparencyLog, error: unknown) => void;
  /** After every round (e.g. to publish tree sizes). */
  afterRound?: () => void;
  /** The clock of batch time bounds and head timestamps (default `Date.now`; tests step it). */
  now?: () => number;
}

/**
 * Runs integration rounds every `intervalMs`: each round moves every log's pending entries into its tree
 * (leader), or follows the stored heads (another replica holds the lease). A failed batch is logged, the
 * log re-reads the stored head, and the entries stay pending for the next round: nothing acknowledged is
 * lost, nothing is integrated twice.
 */
export class Sequencer {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private running = false;
  private stopping = false;
  private leader = false;
  /** Date.now() before the lease's latest renewal or fenced write that succeeded. */
  private confirmedAt = 0;
  /**
   * The lease epoch in which this replica last committed a head of its own for each log: from then on, while
   * the epoch lasts, its head in memory is the newest (a re-claim after being deposed is a new epoch, with
   * heads between). Catching up after the claim is not enough: on a store without transactions a deposed
   * holder's write that passed the fence before the claim can still be landing, its head with it (the bench
   * saw a get-sth step back by one slice, 128 leaves, so); once a head of ours is written at indices past
   * it (the entries are inserted if absent, so ours would have met its), no head of the old epoch can pass
   * ours.
   */
  private readonly caughtUp = new Map<TransparencyLog, number>();

  constructor(
    private readonly logs: readonly TransparencyLog[],
    private readonly options: SequencerOptions,
  ) {
    const { lease } = options;
    if (!lease) return;
    for (const transparencyLog of logs) {
      transparencyLog.writeThrough(async (ops) => {
        const at = Date.now();
        await lease.write(ops);
        this.confirmedAt = Math.max(this.confirmedAt, at);
      });
      transparencyLog.readsFromMemoryWhile(() => this.writesHeadsOf(transparencyLog));
    }
  }

  /**
   * Whether this replica's head of `transparencyLog` is the newest anywhere: it holds the lease (no other
   * replica can write a head), confirmed within half its duration (a margin for clocks and a stalled
   * process: a successor claims only once the whole duration is over), and it committed a head of its own
   * since taking it (see `caughtUp`).
   * Otherwise a read is answered from the stored head, not from a head another replica may have passed.
   */
  private writesHeadsOf(transparencyLog: TransparencyLog): boolean {
    const lease = this.options.lease;
    if (!lease) return true;
    return (
      this.leader &&
      lease.epoch !== undefined &&
      this.caughtUp.get(transparencyLog) === lease.epoch &&
      Date.now() - this.confirmedAt < lease.durationMs / 2
    );
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = false;
    this.schedule(0);
  }

  /** Stops after the round in flight (if any) has finished, and releases the lease. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping = true;
    clearTimeout(this.timer);
    await this.round;
    if (this.leader)
      await this.options.lease
        ?.release()
        .catch((error: unknown) => log.warn('could not release the sequencer lease', { err: error as Error }));
  }

  /** One round now (tests and shutdown paths); rounds never overlap. */
  async runRound(): Promise<void> {
    while (this.round) await this.round;
    this.round = this.integrateAll().finally(() => (this.round = undefined));
    await this.round;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      const started = Date.now();
      void this.runRound().finally(() => this.schedule(Math.max(0, this.options.intervalMs - (Date.now() - started))));
    }, delayMs);
  }

  private async integrateAll(): Promise<void> {
    const { lease } = this.options;
    let leader = true;
    if (lease) {
      const at = Date.now();
      try {
        leader = await (this.leader ? lease.renew(at) : lease.acquire(at));
        if (leader) this.confirmedAt = Math.max(this.confirmedAt, at);
      } catch (error) {
        leader = false;
        log.warn('cannot reach the sequencer lease; following the stored heads this round', { err: error as Error });
      }
      if (leader !== this.leader)
        log.info(leader ? 'this replica now integrates the logs' : 'another replica integrates the logs', {
          holder: lease.holder,
        });
    }
    this.leader = leader;
    if (!leader) this.caughtUp.clear();
    for (const transparencyLog of this.logs) {
      try {
        // With a lease, another replica may have integrated since our last round: follow it first.
        if (!leader || lease) await transparencyLog.catchUp();
        if (leader) await this.drain(transparencyLog);
      } catch (error) {
        // Deposed mid-round: the store refused the head; the next round follows the new holder.
        if (isFenced(error)) this.leader = leader = false;
        this.options.onRoundFailed?.(transparencyLog, error);
        log.error('integration round failed; the entries stay pending', {
          alias: transparencyLog.alias,
          err: error as Error,
        });
        await transparencyLog
          .catchUp()
          .catch((catchUpError: unknown) =>
            log.error('cannot re-read the stored head', { alias: transparencyLog.alias, err: catchUpError as Error }),
          );
      }
    }
    this.options.afterRound?.();
  }

  /**
   * Integrates batches until the backlog is drained. With a lease each batch is bounded by a quarter of the
   * lease's duration as well as by `batchSize` (one batch of 2,000 entries, some 6,000 ordered writes on
   * FerretDB, outlasted the 10 s lease under load, and a successor claimed while it was still landing), and
   * the lease is confirmed before each batch and by a heartbeat: a holder that is alive never loses it. Stops
   * once the lease is lost or held in another epoch.
   */
  private async drain(transparencyLog: TransparencyLog): Promise<void> {
    const { lease } = this.options;
    const boundMs = lease ? lease.durationMs / 4 : Number.POSITIVE_INFINITY;
    const epoch = lease?.epoch;
    // While a batch reads (the queue, each slice's index records) no write of it renews the lease: a
    // heartbeat does, in turn with the batch's writes (the lease takes one step at a time). Under load
    // (FerretDB at load 25-30) a batch's reads alone outlasted a quarter of the lease.
    let lost = false;
    const heartbeat = lease
      ? setInterval(() => {
          this.confirm(lease, boundMs).then(
            (held) => (lost ||= !held),
            (error: unknown) => log.warn('could not renew the sequencer lease', { err: error as Error }),
          );
        }, boundMs)
      : undefined;
    heartbeat?.unref();
    try {
      await this.drainBatches(transparencyLog, boundMs, () => !lost && lease?.epoch === epoch);
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async drainBatches(transparencyLog: TransparencyLog, boundMs: number, held: () => boolean): Promise<void> {
    const { lease, batchSize, maxRootAgeMs } = this.options;
    const now = this.options.now ?? Date.now;
    for (;;) {
      if (lease && (!held() || !(await this.confirm(lease, boundMs)))) return;
      const started = process.hrtime.bigint();
      const epoch = lease?.epoch;
      const result = await transparencyLog.integrate(batchSize, maxRootAgeMs, now, now() + boundMs);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (epoch !== undefined && result.integrated > 0 && lease?.epoch === epoch)
        this.caughtUp.set(transparencyLog, epoch);
      if (result.integrated > 0) {
        this.options.onIntegrated?.(transparencyLog, result, seconds);
        log.debug('integrated a batch', {
          alias: transparencyLog.alias,
          entries: result.integrated,
          size: transparencyLog.head().size,
          ms: Math.round(seconds * 1000),
          ...(result.stoppedEarly ? { stoppedEarly: true } : {}),
          ...(lease ? { epoch: lease.epoch } : {}),
        });
      }
      if ((result.integrated < batchSize && !result.stoppedEarly) || this.stopping) return;
    }
  }

  /**
   * Renews the lease when its last confirmation is `boundMs` old or more (the reads before a batch's first
   * write, a slow head), so it never runs down between batches. False when this replica lost it, or holds it
   * in a new epoch (deposed, then claimed again: another replica's heads may lie between): the round stops
   * integrating, and the next one catches up first.
   */
  private async confirm(lease: StoreLease, boundMs: number): Promise<boolean> {
    const at = Date.now();
    if (at - this.confirmedAt < boundMs) return true;
    const epoch = lease.epoch;
    if ((await lease.renew(at)) && lease.epoch === epoch) {
      this.confirmedAt = Math.max(this.confirmedAt, at);
      return true;
    }
    if (lease.epoch === undefined) {
      this.leader = false;
      this.caughtUp.clear();
      log.info('another replica integrates the logs', { holder: lease.holder });
    }
    return false;
  }
}
