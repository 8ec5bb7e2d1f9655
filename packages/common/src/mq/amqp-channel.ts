/**
 * Opening channels: the one place that gives a new channel its error listener (without one, a channel error
 * would be thrown as an unhandled 'error' event), and a kept channel opened on demand (the publisher's confirm
 * and topology channels); and the deadlines every wait on the broker is bounded by.
 */
import type { Channel } from 'amqplib';

export class DeadlineError extends Error {}

/** Settles with `promise`, or rejects once `deadline` (epoch ms) passes. */
export function withDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) {
    // The caller made `promise` already (a publish sent, say): its later failure must not go unhandled.
    promise.catch(() => undefined);
    return Promise.reject(new DeadlineError(`${what}: deadline passed`));
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what}: timed out`)), remaining);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Opens a channel (`open`: createChannel or createConfirmChannel of the connection) within `deadline`
 * (epoch ms), reporting its errors as `what`. A channel that opens after the deadline is closed.
 */
export async function openChannel<C extends Channel>(
  open: () => Promise<C>,
  deadline: number,
  what: string,
  onError: (error: unknown, context: string) => void,
): Promise<C> {
  const opening = open().then((ch) => {
    ch.on('error', (e: unknown) => onError(e, what));
    return ch;
  });
  try {
    return await withDeadline(opening, deadline, `opening the ${what}`);
  } catch (error) {
    void opening.then((ch) => ch.close()).catch(() => undefined);
    throw error;
  }
}

/**
 * One channel, opened when first asked for and kept until it closes, is dropped, or its connection is replaced
 * (reset). Callers asking while it opens share the one opening, each within its own deadline.
 */
export class KeptChannel<C extends Channel> {
  private channel: C | undefined;
  private opening: Promise<C> | undefined;

  constructor(
    private readonly open: () => Promise<C>,
    private readonly what: string,
    private readonly onError: (error: unknown, context: string) => void,
    /** Listeners to add to each new channel besides 'error' and 'close'. */
    private readonly setup: (ch: C) => void = () => undefined,
  ) {}

  get(deadline: number): Promise<C> {
    if (this.channel) return Promise.resolve(this.channel);
    if (!this.opening) {
      const opening = this.open().then((ch) => {
        ch.on('error', (e: unknown) => this.onError(e, this.what));
        ch.on('close', () => {
          if (this.channel === ch) this.channel = undefined;
        });
        this.setup(ch);
        if (this.opening === opening) {
          this.channel = ch;
          this.opening = undefined;
        } else {
          // Opened for a connection that has since been replaced (see reset).
          void ch.close().catch(() => undefined);
        }
        return ch;
      });
      opening.catch(() => {
        if (this.opening === opening) this.opening = undefined;
      });
      this.opening = opening;
    }
    return withDeadline(this.opening, deadline, `opening the ${this.what}`);
  }

  /** After a reconnection: the channel belonged to the old connection. */
  reset(): void {
    this.channel = undefined;
    this.opening = undefined;
  }

  /** Closes the current channel; the next get opens a new one. */
  drop(): void {
    const ch = this.channel;
    if (!ch) return;
    this.channel = undefined;
    void ch.close().catch(() => undefined);
  }
}
