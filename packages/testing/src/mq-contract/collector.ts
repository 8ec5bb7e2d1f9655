import type { Delivery, Handler } from '@anchor/common/mq';
import { eventually } from '../contract-kit/index.js';

/** Records deliveries (with their arrival times) and waits for them. */
export class Collector<T = unknown> {
  readonly deliveries: Array<Delivery<T> & { at: number }> = [];

  /** A handler that records and then runs `then` (which may throw to nack). */
  handler(then?: (d: Delivery<T>) => unknown): Handler<T> {
    return async (d) => {
      this.deliveries.push({ ...d, at: Date.now() });
      await then?.(d);
    };
  }

  get bodies(): T[] {
    return this.deliveries.map((d) => d.body);
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<void> {
    await eventually(
      () => this.deliveries.length >= count,
      `${count} deliveries (got ${this.deliveries.length})`,
      timeoutMs,
    );
  }
}
