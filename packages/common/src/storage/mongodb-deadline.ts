/**
 * A deadline for every driver call. The driver (mongodb 7.9) has no client-side operation timeout any more
 * (`timeoutMS` is ignored) and can leave an operation waiting forever: one that writes to a connection whose
 * socket a server shutdown has already destroyed waits for a 'drain' that never comes (the race the heartbeat
 * watch handles for server monitors), and closing the client does not end it; one whose answer a dead network
 * drops waits as long (no socket timeout is set). Whoever awaits such a call would never move again (the node's
 * batch writer awaits each cut before the next, an anchor's pipeline each step).
 */

/** Resolves or rejects as `call` does, or rejects with `overdue()`'s error once `timeoutMs` have passed. */
export function withDeadline<R>(call: () => Promise<R>, timeoutMs: number, overdue: () => unknown): Promise<R> {
  let pending: Promise<R>;
  try {
    pending = call();
  } catch (error) {
    return Promise.reject(error);
  }
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(overdue()), timeoutMs);
  });
  // The call may still settle after the deadline: the race keeps a handler on it, so that is never unhandled.
  return Promise.race([pending, expired]).finally(() => clearTimeout(timer));
}
