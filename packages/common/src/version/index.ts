import { readFileSync } from 'node:fs';

/** The project version, read once from the common package manifest so every service reports the same. */
export const PROJECT_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export const PROJECT_REPOSITORY = 'https://github.com/anchor-network/anchor';
