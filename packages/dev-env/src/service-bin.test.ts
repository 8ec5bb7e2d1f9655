import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceBin } from './service-bin.js';
import { SERVICES } from './service-table.js';

describe('serviceBin', () => {
  it("finds each service of the table as its package.json's bin, built", () => {
    for (const { packageName } of Object.values(SERVICES)) {
      const bin = serviceBin(packageName);
      const packageDir = join(bin, '..', '..');
      const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
        name: string;
        bin: Record<string, string>;
      };
      expect(manifest.name).toBe(packageName);
      expect(Object.values(manifest.bin).map((file) => join(packageDir, file))).toEqual([bin]);
    }
  });

  it('refuses a package without exactly one bin', () => {
    expect(() => serviceBin('@anchor/common')).toThrow(/@anchor\/common declares 0 bins/);
  });
});
