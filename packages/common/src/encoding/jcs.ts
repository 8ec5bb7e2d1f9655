import canonicalizeJson from 'canonicalize';
import { badRequest } from '../errors/index.js';

/**
 * JSON Canonicalization Scheme (RFC 8785), through the maintained `canonicalize` package: sorted keys
 * (UTF-16 order), no whitespace, minimal string escaping, ES6 number formatting. Every Sidetree hash,
 * anchor linkset hash and transparency-log payload depends on these exact bytes.
 *
 * Most values met here are canonical already in structure: parsed from JSON that a canonicalising client
 * or this project wrote, so every object's keys come in sorted order. For those RFC 8785 output is exactly
 * `JSON.stringify`'s (the RFC defines its string and number forms as ECMAScript's), which V8 produces
 * natively; `alreadyOrdered` checks that, and anything else goes to the package. The parse of an operation
 * spent about a third of its time in the package's recursive walk.
 */
export function canonicalize(value: unknown): string {
  if (alreadyOrdered(value, 0)) return JSON.stringify(value);
  let text: string | undefined;
  try {
    text = (canonicalizeJson as (input: unknown) => string | undefined)(value);
  } catch (error) {
    // What arrives here came from a client's JSON: a lone surrogate is its malformed input, not our failure.
    if (/surrogate/i.test((error as Error).message)) throw badRequest((error as Error).message, { cause: error });
    throw error;
  }
  if (text === undefined) throw new TypeError('value cannot be canonicalized as JSON');
  return text;
}

export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalize(value), 'utf8');
}

/** Deeper values go to the package, which also detects cycles. */
const MAX_DEPTH = 64;

/**
 * Whether `JSON.stringify(value)` is its RFC 8785 form: plain JSON data only (finite numbers, well-formed
 * strings, arrays without holes or undefined, plain objects without toJSON), every object's keys in
 * strictly increasing UTF-16 order. Anything the package treats specially (toJSON, undefined, NaN, lone
 * surrogates in values or keys, which it refuses) answers false, so the package decides.
 */
function alreadyOrdered(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value);
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
      return true;
    case 'object': {
      if (value === null) return true;
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          if (!(i in value) || !alreadyOrdered(value[i], depth + 1)) return false;
        }
        return true;
      }
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
      if ('toJSON' in value) return false;
      let previous: string | undefined;
      for (const key in value) {
        if (!Object.hasOwn(value, key)) return false;
        if ((previous !== undefined && !(previous < key)) || !isWellFormed(key)) return false;
        const member = (value as Record<string, unknown>)[key];
        if (member === undefined || !alreadyOrdered(member, depth + 1)) return false;
        previous = key;
      }
      return true;
    }
    default:
      return false;
  }
}

/** No lone surrogates (ES2024's String.prototype.isWellFormed, in Node >= 20; beyond the ES2023 lib compiled against). */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}
