import type { ReplicaSet } from '@anchor/testing/replicas';
import { processCpuMs } from '../federation/node-processes.js';

/** Every running replica's user + system CPU (ms) over the sampler's life; a killed replica's last 200 ms are missed. */
export function cpuSampler(set: ReplicaSet): { stop(): number } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const sample = (): void => {
    for (const replica of set.running) {
      const ms = processCpuMs(replica.process.pid);
      if (ms === undefined) continue;
      if (!first.has(replica.process.pid)) first.set(replica.process.pid, ms);
      last.set(replica.process.pid, ms);
    }
  };
  sample();
  const timer = setInterval(sample, 200);
  return {
    stop() {
      sample();
      clearInterval(timer);
      let total = 0;
      for (const [pid, ms] of last) total += ms - (first.get(pid) ?? ms);
      return total;
    },
  };
}
