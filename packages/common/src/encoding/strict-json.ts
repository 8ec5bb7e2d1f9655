import { badRequest } from '../errors/index.js';

/**
 * What `JSON.parse` lets through but a signed or hashed request must not contain:
 * - a member name twice in one object: JSON.parse keeps the last copy, another parser may keep the first,
 *   so two implementations could read two different operations from one request;
 * - a lone UTF-16 surrogate (`"\ud800"`): it has no UTF-8 form, so no canonical form to hash or sign;
 * - a member named `__proto__`, `constructor` or `prototype`: JavaScript object handling (spreads,
 *   assignments, JSON-LD expansion) may drop or reinterpret it, so the bytes signed could differ from the
 *   bytes the client sent (a `__proto__` claim changed after signing still verified).
 * `findJsonDefect` reports the first one, by its path (`delta.patches[0].action`), in text JSON.parse
 * accepted; its answer for text JSON.parse refuses is unspecified.
 */

export interface JsonDefect {
  /** Where: `a.b[2].c` (the empty string for the top-level value). */
  path: string;
  problem: 'duplicate-member' | 'lone-surrogate' | 'reserved-member' | 'too-deep';
}

/** Deeper nesting is refused rather than checked (no request this project takes nests this deep). */
export const MAX_JSON_DEPTH = 256;

/** Member names refused anywhere in a request (see above). */
export const RESERVED_MEMBER_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Objects with more members than this check names with a Set; smaller ones (nearly all) with a list. */
const LINEAR_NAMES = 16;

function wellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * One pass over the text. The path to the current value is kept as a stack of member names and array
 * indexes and written out only for a defect; a string without escapes needs no check of its own when the
 * whole text is well formed (one native check), so only escaped strings and member names are cut out.
 */
class Scan {
  i = 0;
  /** Where the last string token's content starts and ends (exclusive), and whether it has escapes. */
  private start = 0;
  private end = 0;
  private escaped = false;
  private readonly path: Array<string | number> = [];
  private readonly textWellFormed: boolean;

  constructor(readonly text: string) {
    this.textWellFormed = wellFormed(text);
  }

  private skipSpace(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }

  /** Moves past the string token at `i` (a quote), noting where its content is. */
  private skipString(): void {
    const t = this.text;
    let j = this.i + 1;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(j);
      if (c === 0x5c) {
        escaped = true;
        j += 2;
      } else if (c === 0x22 || Number.isNaN(c)) break;
      else j++;
    }
    this.start = this.i + 1;
    this.end = j;
    this.escaped = escaped;
    this.i = j + 1;
  }

  /** The last string token, decoded. */
  private decoded(): string {
    return this.escaped
      ? (JSON.parse(this.text.slice(this.start - 1, this.end + 1)) as string)
      : this.text.slice(this.start, this.end);
  }

  /** Skips a number, true, false or null. */
  private scalar(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) return;
      this.i++;
    }
  }

  private defect(problem: JsonDefect['problem']): JsonDefect {
    let path = '';
    for (const segment of this.path)
      path = typeof segment === 'number' ? `${path}[${segment}]` : path === '' ? segment : `${path}.${segment}`;
    return { path, problem };
  }

  value(depth: number): JsonDefect | undefined {
    if (depth > MAX_JSON_DEPTH) return this.defect('too-deep');
    this.skipSpace();
    const c = this.text.charCodeAt(this.i);
    if (c === 0x22) {
      this.skipString();
      if (this.textWellFormed && !this.escaped) return undefined;
      return wellFormed(this.decoded()) ? undefined : this.defect('lone-surrogate');
    }
    if (c === 0x7b) return this.object(depth);
    if (c === 0x5b) return this.array(depth);
    this.scalar();
    return undefined;
  }

  private object(depth: number): JsonDefect | undefined {
    this.i++;
    const names: string[] = [];
    let large: Set<string> | undefined;
    for (;;) {
      this.skipSpace();
      const c = this.text.charCodeAt(this.i);
      if (c === 0x7d || Number.isNaN(c)) {
        this.i++;
        return undefined;
      }
      if (c === 0x2c) {
        this.i++;
        continue;
      }
      this.skipString();
      const name = this.decoded();
      this.path.push(name);
      if (!wellFormed(name)) return this.defect('lone-surrogate');
      if (RESERVED_MEMBER_NAMES.has(name)) return this.defect('reserved-member');
      if (large === undefined && names.length >= LINEAR_NAMES) large = new Set(names);
      if (large === undefined ? names.includes(name) : large.has(name)) return this.defect('duplicate-member');
      if (large === undefined) names.push(name);
      else large.add(name);
      this.skipSpace();
      this.i++; // the colon
      const defect = this.value(depth + 1);
      if (defect) return defect;
      this.path.pop();
    }
  }

  private array(depth: number): JsonDefect | undefined {
    this.i++;
    let index = 0;
    for (;;) {
      this.skipSpace();
      const c = this.text.charCodeAt(this.i);
      if (c === 0x5d || Number.isNaN(c)) {
        this.i++;
        return undefined;
      }
      if (c === 0x2c) {
        this.i++;
        continue;
      }
      this.path.push(index++);
      const defect = this.value(depth + 1);
      if (defect) return defect;
      this.path.pop();
    }
  }
}

export function findJsonDefect(text: string): JsonDefect | undefined {
  return new Scan(text).value(0);
}

/** The defect as a client-facing sentence about `what` (e.g. "operation request"). */
export function describeJsonDefect(defect: JsonDefect, what: string): string {
  const where = defect.path === '' ? what : `${what} member ${defect.path}`;
  switch (defect.problem) {
    case 'duplicate-member':
      return `${what} has the member ${defect.path} more than once; duplicate member names are refused`;
    case 'lone-surrogate':
      return `${where} contains a lone UTF-16 surrogate escape, which has no UTF-8 form`;
    case 'reserved-member':
      return `${what} has a member named ${defect.path}; the names ${[...RESERVED_MEMBER_NAMES].join(', ')} are refused`;
    case 'too-deep':
      return `${what} nests deeper than ${MAX_JSON_DEPTH} levels`;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The one strict JSON reader for request bodies: UTF-8 (a BOM is dropped), JSON, and none of the defects
 * above; anything else is a 400 naming the problem (and the member, by its path). `what` names the input in
 * messages ("request body", "operation request").
 */
export function parseStrictJson(input: Uint8Array | string, what: string): unknown {
  let text: string;
  if (typeof input === 'string') text = input;
  else {
    try {
      text = strictUtf8.decode(input);
    } catch {
      throw badRequest(`${what} is not UTF-8`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const prefix = what === 'request body' ? '' : `${what}: `;
    throw badRequest(`${prefix}malformed JSON: ${(error as Error).message}`);
  }
  const defect = findJsonDefect(text);
  if (defect) throw badRequest(describeJsonDefect(defect, what));
  return value;
}
