import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Reads a JSON file of the DIF vector set copied under `vectors/dif`. */
export function difVector<T = Record<string, unknown>>(path: string): T {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../../vectors/dif/${path}`, import.meta.url)), 'utf8')) as T;
}

/** The raw bytes of a DIF vector file (operation requests are parsed from their bytes, as a node would). */
export function difVectorBytes(path: string): Buffer {
  return readFileSync(fileURLToPath(new URL(`../../vectors/dif/${path}`, import.meta.url)));
}
