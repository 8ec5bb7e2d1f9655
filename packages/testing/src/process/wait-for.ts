export interface WaitOptions {
  /** Default 10 s. */
  timeoutMs?: number;
  /** Default 50 ms. */
  intervalMs?: number;
  /** What is awaited, for the timeout message. */
  description?: string;
  /** Stops polling early: the wait rejects with the signal's reason. */
  signal?: AbortSignal;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `predicate` until it returns a truthy value (which is returned). A predicate that throws counts as
 * "not yet"; its last error is quoted if the wait times out.
 */
export async function waitFor<T>(predicate: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const value = await predicate();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const why =
        lastError === undefined
          ? ''
          : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.description ?? 'a condition'}${why}`);
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
