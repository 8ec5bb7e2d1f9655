import { describe, expect, it } from 'vitest';
import { ExportReadAhead } from './export-read-ahead.js';

interface TestPage {
  cursor: string;
  more: boolean;
  size: number;
}

/** An export of `sizes.length` pages; page i answers the cursor `String(i)` (the start is ''). */
function exportOf(sizes: number[], failAt?: number) {
  const asked: string[] = [];
  const fetch = async (cursor: string): Promise<TestPage> => {
    asked.push(cursor);
    await Promise.resolve();
    const index = cursor === '' ? 0 : Number(cursor);
    if (index === failAt) throw Object.assign(new Error(`page ${index} failed`), { status: 503 });
    return { cursor: String(index + 1), more: index + 1 < sizes.length, size: sizes[index] as number };
  };
  return { asked, fetch };
}

/** Every fetch answers in microtasks: once a timer fires, the read-ahead has fetched all it will. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const weigh = (page: TestPage) => page.size;

describe('export read-ahead', () => {
  it('fetches ahead up to its depth, one request at a time, each from the cursor the page before named', async () => {
    const source = exportOf([1, 1, 1, 1, 1, 1]);
    const pages = new ExportReadAhead(source.fetch, '', 3);
    await settle();
    expect(source.asked).toEqual(['', '1', '2']);
    expect((await pages.take(10, weigh)).map((page) => page.cursor)).toEqual(['1', '2', '3']);
    await settle();
    expect(source.asked).toEqual(['', '1', '2', '3', '4', '5']);
    expect((await pages.take(10, weigh)).map((page) => page.cursor)).toEqual(['4', '5', '6']);
    expect(await pages.take(10, weigh)).toEqual([]);
    expect(source.asked).toHaveLength(6);
  });

  it('takes pages up to the weight, always one even when it alone weighs more', async () => {
    const source = exportOf([600, 300, 300, 2_000, 100]);
    const pages = new ExportReadAhead(source.fetch, '', 8);
    await settle();
    expect((await pages.take(1_000, weigh)).map((page) => page.size)).toEqual([600, 300]);
    expect((await pages.take(1_000, weigh)).map((page) => page.size)).toEqual([300]);
    expect((await pages.take(1_000, weigh)).map((page) => page.size)).toEqual([2_000]);
    expect((await pages.take(1_000, weigh)).map((page) => page.size)).toEqual([100]);
    expect(await pages.take(1_000, weigh)).toEqual([]);
  });

  it('waits for the first page when none is fetched yet, and resumes from a saved cursor', async () => {
    const source = exportOf([1, 1, 1, 1]);
    const pages = new ExportReadAhead(source.fetch, '2', 2);
    expect((await pages.take(10, weigh)).map((page) => page.cursor)).toEqual(['3']);
    expect(source.asked[0]).toBe('2');
  });

  it('hands over the pages read before a failure, then throws it, and asks for nothing after it', async () => {
    const source = exportOf([1, 1, 1, 1, 1], 2);
    const pages = new ExportReadAhead(source.fetch, '', 8);
    await settle();
    expect((await pages.take(10, weigh)).map((page) => page.cursor)).toEqual(['1', '2']);
    await expect(pages.take(10, weigh)).rejects.toThrow('page 2 failed');
    await settle();
    expect(source.asked).toEqual(['', '1', '2']);
  });

  it('fetches nothing more once closed, and drops what was read', async () => {
    const source = exportOf([1, 1, 1, 1, 1, 1]);
    const pages = new ExportReadAhead(source.fetch, '', 2);
    expect(await pages.take(1, weigh)).toHaveLength(1);
    pages.close();
    await settle();
    expect(source.asked.length).toBeLessThanOrEqual(3);
    expect(await pages.take(1, weigh)).toEqual([]);
  });
});
