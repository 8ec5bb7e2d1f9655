import { describe, expect, it } from 'vitest';
import { compareHeads, ForwardHead, type TreeHead } from './forward-head.js';

const root = (byte: number) => Buffer.alloc(32, byte);
const head = (size: number, rootByte: number, timestamp: number): TreeHead => ({
  size,
  root: root(rootByte),
  timestamp,
});

describe('ForwardHead', () => {
  it('takes a larger tree, and the same tree signed later', () => {
    const held = new ForwardHead(head(10, 1, 1_000));
    expect(held.offer(head(12, 2, 1_100))).toBe('newer');
    expect(held.head).toEqual(head(12, 2, 1_100));
    expect(held.offer(head(12, 2, 5_000))).toBe('newer');
    expect(held.head.timestamp).toBe(5_000);
  });

  it('keeps its head when offered a smaller tree, an older signing of it, or the same head', () => {
    const held = new ForwardHead(head(12, 2, 5_000));
    expect(held.offer(head(10, 1, 9_000))).toBe('older');
    expect(held.offer(head(12, 2, 4_000))).toBe('older');
    expect(held.offer(head(12, 2, 5_000))).toBe('same');
    expect(held.head).toEqual(head(12, 2, 5_000));
  });

  it('refuses another root for the size it holds, whatever its timestamp', () => {
    const held = new ForwardHead(head(12, 2, 5_000));
    expect(held.offer(head(12, 3, 9_000))).toBe('fork');
    expect(held.head.root).toEqual(root(2));
  });

  it('never moves backwards over any order of offers', () => {
    const offers = [head(3, 3, 30), head(1, 1, 10), head(5, 5, 50), head(2, 2, 20), head(5, 5, 40), head(4, 4, 60)];
    const held = new ForwardHead(head(0, 0, 0));
    const sizes: number[] = [];
    for (const offer of offers) {
      held.offer(offer);
      sizes.push(held.head.size);
    }
    expect(sizes).toEqual([3, 3, 5, 5, 5, 5]);
    expect(held.head).toEqual(head(5, 5, 50));
  });

  it('compares heads by size first, then root, then timestamp', () => {
    expect(compareHeads(head(2, 9, 0), head(1, 1, 100))).toBe('newer');
    expect(compareHeads(head(1, 1, 100), head(2, 9, 0))).toBe('older');
    expect(compareHeads(head(2, 1, 100), head(2, 9, 0))).toBe('fork');
  });
});
