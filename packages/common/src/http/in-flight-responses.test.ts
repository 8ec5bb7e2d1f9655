import { describe, expect, it } from 'vitest';
import { InFlightResponses } from './in-flight-responses.js';

describe('InFlightResponses', () => {
  it('keeps what was added until its slot is deleted, and iterates over what it keeps', () => {
    const open = new InFlightResponses<{ id: number }>();
    const a = { id: 1 };
    const b = { id: 2 };
    const c = { id: 3 };
    const slotA = open.add(a);
    const slotB = open.add(b);
    open.add(c);
    expect(open.size).toBe(3);
    open.delete(slotB);
    expect([...open]).toEqual([a, c]);
    expect(open.size).toBe(2);
    open.delete(slotA);
    expect([...open]).toEqual([c]);
  });

  it('reuses a freed slot, so a steady stream of requests does not grow it', () => {
    const open = new InFlightResponses<object>();
    const first = open.add({});
    open.delete(first);
    for (let i = 0; i < 1_000; i++) open.delete(open.add({}));
    expect(open.add({})).toBe(first);
    expect(open.size).toBe(1);
  });

  it('ignores a slot that holds nothing', () => {
    const open = new InFlightResponses<{ id: number }>();
    const a = { id: 1 };
    const slotA = open.add(a);
    open.delete(slotA);
    const b = { id: 2 };
    const slotB = open.add(b);
    expect(slotB).toBe(slotA);
    open.delete(slotA + 1);
    const c = { id: 3 };
    open.add(c);
    expect([...open]).toEqual([b, c]);
    open.delete(slotA);
    open.delete(slotA);
    expect([...open]).toEqual([c]);
    expect(open.size).toBe(1);
  });
});
