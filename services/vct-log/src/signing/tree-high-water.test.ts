import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rollbackProblem, TreeHighWater } from './tree-high-water.js';

const head = (size: number, rootByte: number, timestamp = 1_000 + size) => ({
  size,
  root: Buffer.alloc(32, rootByte),
  timestamp,
});

describe('the tree high-water mark', () => {
  let dir: TempDir;
  let file: string;
  beforeEach(async () => {
    dir = await makeTempDir('vct-high-water-');
    file = join(dir.path, 'high-water.json');
  });
  afterEach(() => dir.remove());

  it('keeps the largest head per alias on disk, never a smaller one', async () => {
    const mark = await TreeHighWater.open(file);
    expect(mark.get('main')).toBeUndefined();
    await mark.raise('main', head(3, 1));
    await mark.raise('main', head(2, 2));
    await mark.raise('other', head(1, 3));
    const reopened = await TreeHighWater.open(file);
    expect(reopened.get('main')).toEqual({ size: 3, root: Buffer.alloc(32, 1).toString('base64'), timestamp: 1_003 });
    expect(reopened.get('other')?.size).toBe(1);
    await reopened.reset('main', head(1, 4));
    expect((await TreeHighWater.open(file)).get('main')?.size).toBe(1);
  });

  it('writes concurrent raises in order, ending with the largest', async () => {
    const mark = await TreeHighWater.open(file);
    await Promise.all([5, 9, 7, 8].map((size) => mark.raise('main', head(size, size))));
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      main: { size: 9, root: Buffer.alloc(32, 9).toString('base64'), timestamp: 1_009 },
    });
  });

  it('names a smaller tree and a fork of the same size, and lets a larger or equal tree through', () => {
    const mark = { size: 3, root: Buffer.alloc(32, 1).toString('base64'), timestamp: 1 };
    expect(rollbackProblem('main', mark, head(2, 1))).toMatch(
      /tree of 2 entries, but this log already signed .* 3 entries/,
    );
    expect(rollbackProblem('main', mark, head(3, 2))).toMatch(/already signed root .* for that size/);
    expect(rollbackProblem('main', mark, head(3, 1))).toBeUndefined();
    expect(rollbackProblem('main', mark, head(4, 7))).toBeUndefined();
    expect(rollbackProblem('main', undefined, head(0, 0))).toBeUndefined();
  });

  it('refuses a damaged file instead of starting without the mark', async () => {
    for (const [text, problem] of [
      ['{not json', /is not JSON/],
      ['[1]', /must hold an object/],
      ['{"main":{"size":-1,"root":"x","timestamp":1}}', /malformed head for "main"/],
      ['{"main":{"size":1,"timestamp":1}}', /malformed head for "main"/],
    ] as const) {
      await writeFile(file, text);
      await expect(TreeHighWater.open(file)).rejects.toThrow(problem);
    }
  });
});
