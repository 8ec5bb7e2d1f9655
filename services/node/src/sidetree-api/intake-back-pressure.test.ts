import { describe, expect, it } from 'vitest';
import { IntakeBackPressure, QueueFull } from './intake-back-pressure.js';

describe('IntakeBackPressure', () => {
  it('admits up to the bound, counting its own accepts between counts, and refuses with 503 and Retry-After', async () => {
    let stored = 2;
    const depths: number[] = [];
    const gate = new IntakeBackPressure(async () => stored, {
      maxQueued: 4,
      refreshMs: 60_000,
      onDepth: (d) => depths.push(d),
    });
    const now = Date.now();
    await gate.admit(now);
    gate.accepted();
    stored++;
    await gate.admit(now);
    gate.accepted();
    stored++;
    const refused = await gate.admit(now).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(QueueFull);
    expect(refused).toMatchObject({ status: 503, retryable: true, headers: { 'Retry-After': '5' } });
    expect((refused as Error).message).toMatch(/4 operations accepted and not yet anchored, at most 4/);
    expect(depths).toEqual([2]);
  });

  it('reopens at the first count after the queue drained, waiting for that count while full', async () => {
    let stored = 3;
    const gate = new IntakeBackPressure(async () => stored, { maxQueued: 3, refreshMs: 100 });
    const now = Date.now();
    await expect(gate.admit(now)).rejects.toBeInstanceOf(QueueFull);
    stored = 1;
    // Within the refresh period the last count stands.
    await expect(gate.admit(Date.now())).rejects.toBeInstanceOf(QueueFull);
    await new Promise((resolve) => setTimeout(resolve, 120));
    await gate.admit(Date.now());
  });

  it('keeps the last count when the store cannot be counted', async () => {
    let fail = false;
    const gate = new IntakeBackPressure(
      async () => {
        if (fail) throw new Error('store down');
        return 5;
      },
      { maxQueued: 5, refreshMs: 0 },
    );
    await expect(gate.admit()).rejects.toBeInstanceOf(QueueFull);
    fail = true;
    await expect(gate.admit()).rejects.toBeInstanceOf(QueueFull);
  });
});
