/**
 * Sequential calls of `fn` for `ms` milliseconds after a short warm-up: calls per second and this process's CPU
 * microseconds per call. The same loop as the Digital Bazaar peer's (`bench/peers/vc-peer.mjs`), so the two
 * in-process figures are counted alike.
 */
export async function sequentialRate(
  fn: () => Promise<unknown>,
  ms: number,
): Promise<{ perSecond: number; cpuMicros: number }> {
  const warmUntil = performance.now() + Math.min(500, ms / 4);
  while (performance.now() < warmUntil) await fn();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < ms) {
    await fn();
    count++;
  }
  const used = process.cpuUsage(cpu);
  return { perSecond: (count * 1000) / (performance.now() - started), cpuMicros: (used.user + used.system) / count };
}
