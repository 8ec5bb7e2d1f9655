import type { CheckResult } from './health.js';

export interface StallBoundedProbeOptions {
  /**
   * How long a health check waits for the probe before it answers from what it knows (ms). Default 1 s. A
   * settled result is reused for as long, so any number of callers make at most one probe a second.
   */
  answerWithinMs?: number;
  /**
   * How long the dependency may go without answering while it is reported degraded (still healthy, 200)
   * before it is reported unavailable (503), in ms: a load balancer takes the replica out only for a real stall.
   */
  unhealthyAfterMs: number;
  /** What the dependency is called in its statuses ("the store"). */
  name?: string;
  /** Clock (ms), for tests. */
  now?: () => number;
}

/**
 * A health probe of a dependency that can stall (a database whose connection is open but answers nothing):
 * one probe in flight at a time whatever the number of callers, its result reused, and a caller never waits
 * longer than `answerWithinMs`. An answered failure is unhealthy at once; a probe with no answer yet is
 * "degraded" until the dependency has gone `unhealthyAfterMs` without answering, then unhealthy. The stall is
 * counted from the first probe left unanswered since the last success, so it keeps growing across probes
 * that fail by their own deadline. Intake paths ask `stalledForMs()` to refuse work the store would only queue.
 */
export class StallBoundedProbe {
  private inFlight: Promise<void> | undefined;
  /** Start of the first probe with no success since: undefined while the dependency answers. */
  private unansweredSince: number | undefined;
  private last: { at: number; error?: string } | undefined;
  private readonly answerWithinMs: number;
  private readonly unhealthyAfterMs: number;
  private readonly name: string;
  private readonly now: () => number;
  private probes = 0;

  constructor(
    private readonly probe: () => Promise<unknown>,
    options: StallBoundedProbeOptions,
  ) {
    this.answerWithinMs = options.answerWithinMs ?? 1_000;
    this.unhealthyAfterMs = options.unhealthyAfterMs;
    this.name = options.name ?? 'the dependency';
    this.now = options.now ?? (() => Date.now());
  }

  /** How many probes were started (each caller shares the one in flight). */
  get started(): number {
    return this.probes;
  }

  /** The health status: waits at most `answerWithinMs`, for the probe in flight or a new one. */
  async check(): Promise<CheckResult> {
    const fresh = this.freshResult();
    if (fresh !== undefined) return fresh;
    const probing = this.startProbe();
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.answerWithinMs);
      timer.unref();
    });
    try {
      await Promise.race([probing, waited]);
    } finally {
      clearTimeout(timer);
    }
    return this.freshResult() ?? this.stallStatus();
  }

  /**
   * How long the dependency has gone without answering when it is known to be stalled or failing (a probe
   * unanswered past `answerWithinMs`, or the last one failed), else undefined. Never waits; starts a probe when
   * the last result is stale, so a caller learns of a stall without /healthcheck being polled.
   */
  stalledForMs(): number | undefined {
    if (this.freshResult() === undefined) void this.startProbe();
    const now = this.now();
    if (this.unansweredSince === undefined) return undefined;
    const stalled = now - this.unansweredSince;
    if (this.last?.error !== undefined && this.last.at >= this.unansweredSince) return stalled;
    return stalled >= this.answerWithinMs ? stalled : undefined;
  }

  /** The last settled result while it is still fresh and no probe has outrun it. */
  private freshResult(): CheckResult | undefined {
    if (this.last === undefined || this.inFlight !== undefined) return undefined;
    if (this.now() - this.last.at >= this.answerWithinMs) return undefined;
    return this.last.error === undefined
      ? { status: 'success', healthy: true }
      : { status: this.last.error, healthy: false };
  }

  private startProbe(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.unansweredSince ??= this.now();
    this.probes++;
    const probing = Promise.resolve()
      .then(this.probe)
      .then(
        () => {
          this.last = { at: this.now() };
          this.unansweredSince = undefined;
        },
        (error: unknown) => {
          this.last = { at: this.now(), error: (error instanceof Error ? error.message : String(error)) || 'failed' };
        },
      )
      .finally(() => {
        if (this.inFlight === probing) this.inFlight = undefined;
      });
    this.inFlight = probing;
    return probing;
  }

  private stallStatus(): CheckResult {
    const stalled = this.now() - (this.unansweredSince ?? this.now());
    const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
    return stalled < this.unhealthyAfterMs
      ? {
          status: `degraded: ${this.name} has not answered for ${seconds(stalled)} (unavailable after ${seconds(this.unhealthyAfterMs)})`,
          healthy: true,
        }
      : { status: `unavailable: ${this.name} has not answered for ${seconds(stalled)}`, healthy: false };
  }
}
