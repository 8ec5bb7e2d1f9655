/**
 * Cuts the next batch from a queue of pending operations: at most `maxOperations`, at most one operation per
 * DID suffix (orb's batch writer rule: a second operation for the same DID must wait for a later batch, so
 * that it is anchored after the first), keeping arrival order. Everything not taken rolls over, in order.
 *
 * ```ts
 * const { batch, rollover } = selectBatch(pending, { maxOperations: protocol.maxOperationCount, suffixOf: (p) => p.didSuffix });
 * ```
 */
export function selectBatch<T>(
  queue: readonly T[],
  options: { maxOperations: number; suffixOf: (item: T) => string },
): { batch: T[]; rollover: T[] } {
  const batch: T[] = [];
  const rollover: T[] = [];
  const suffixes = new Set<string>();
  for (const item of queue) {
    const suffix = options.suffixOf(item);
    if (batch.length < options.maxOperations && !suffixes.has(suffix)) {
      suffixes.add(suffix);
      batch.push(item);
    } else {
      rollover.push(item);
    }
  }
  return { batch, rollover };
}
