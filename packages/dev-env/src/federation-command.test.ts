import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOptionsMarkdown, undocumentedOptions } from '@anchor/common/config';
import { describe, expect, it } from 'vitest';
import { demoConfigSpec, federationConfigSpec } from './federation-command.js';
import { federationInitSpec } from './federation-init.js';
import { kmsInitSpec } from './kms-init.js';

const README = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

describe('the commands behind npm start and npm run demo', () => {
  it("the README's option tables are the current renderings of both specs", () => {
    for (const spec of [federationConfigSpec, demoConfigSpec]) {
      expect(undocumentedOptions(spec, README)).toEqual([]);
      expect(README).toContain(renderOptionsMarkdown(spec));
    }
  });
});

describe('the deployment jobs', () => {
  it("the README's option tables are the current renderings of federation-init and kms-init", () => {
    for (const spec of [federationInitSpec, kmsInitSpec]) {
      expect(undocumentedOptions(spec, README)).toEqual([]);
      expect(README).toContain(renderOptionsMarkdown(spec));
    }
  });
});
