/**
 * What `JSON.parse` lets through but a signed or hashed request must not contain:
 * - a member name twice in one object: JSON.parse keeps the last copy, another parser may keep the first,
 *   so two implementations could read two different operations from one request;
 * - a lone UTF-16 surrogate (`"\ud800"`): it has no UTF-8 form, so no canonical form to hash or sign.
 * `findJsonDefect` reports the first one, by its path (`delta.patches[0].action`), in text JSON.parse
 * accepted; its answer for text JSON.parse refuses is unspecified.
 */

export interface JsonDefect {
  /** Where: `a.b[2].c` (the empty string for the top-level value). */
  path: string;
  problem: 'duplicate-member' | 'lone-surrogate' | 'too-deep';
}

/** Deeper nesting is refused rather than checked (no request this project takes nests this deep). */
export const MAX_JSON_DEPTH = 256;

class Scan {
  i = 0;
  constructor(readonly text: string) {}

  skipSpace(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.i++;
    }
  }

  /** The string token at `i` (which is a quote), decoded; `i` moves past it. */
  string(): string {
    const t = this.text;
    const start = this.i;
    let j = start + 1;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(j);
      if (c === 0x5c) {
        escaped = true;
        j += 2;
      } else if (c === 0x22 || Number.isNaN(c)) break;
      else j++;
    }
    this.i = j + 1;
    return escaped ? (JSON.parse(t.slice(start, j + 1)) as string) : t.slice(start + 1, j);
  }

  /** Skips a number, true, false or null. */
  scalar(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) return;
      this.i++;
    }
  }
}

const member = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

function wellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

function value(scan: Scan, path: string, depth: number): JsonDefect | undefined {
  if (depth > MAX_JSON_DEPTH) return { path, problem: 'too-deep' };
  scan.skipSpace();
  const c = scan.text.charCodeAt(scan.i);
  if (c === 0x22) return wellFormed(scan.string()) ? undefined : { path, problem: 'lone-surrogate' };
  if (c === 0x7b) return object(scan, path, depth);
  if (c === 0x5b) return array(scan, path, depth);
  scan.scalar();
  return undefined;
}

function object(scan: Scan, path: string, depth: number): JsonDefect | undefined {
  scan.i++;
  const names = new Set<string>();
  for (;;) {
    scan.skipSpace();
    const c = scan.text.charCodeAt(scan.i);
    if (c === 0x7d || Number.isNaN(c)) {
      scan.i++;
      return undefined;
    }
    if (c === 0x2c) {
      scan.i++;
      continue;
    }
    const name = scan.string();
    const at = member(path, name);
    if (!wellFormed(name)) return { path: at, problem: 'lone-surrogate' };
    if (names.has(name)) return { path: at, problem: 'duplicate-member' };
    names.add(name);
    scan.skipSpace();
    scan.i++; // the colon
    const defect = value(scan, at, depth + 1);
    if (defect) return defect;
  }
}

function array(scan: Scan, path: string, depth: number): JsonDefect | undefined {
  scan.i++;
  let index = 0;
  for (;;) {
    scan.skipSpace();
    const c = scan.text.charCodeAt(scan.i);
    if (c === 0x5d || Number.isNaN(c)) {
      scan.i++;
      return undefined;
    }
    if (c === 0x2c) {
      scan.i++;
      continue;
    }
    const defect = value(scan, `${path}[${index++}]`, depth + 1);
    if (defect) return defect;
  }
}

export function findJsonDefect(text: string): JsonDefect | undefined {
  return value(new Scan(text), '', 0);
}

/** The defect as a client-facing sentence about `what` (e.g. "operation request"). */
export function describeJsonDefect(defect: JsonDefect, what: string): string {
  const where = defect.path === '' ? what : `${what} member ${defect.path}`;
  switch (defect.problem) {
    case 'duplicate-member':
      return `${what} has the member ${defect.path} more than once; duplicate member names are refused`;
    case 'lone-surrogate':
      return `${where} contains a lone UTF-16 surrogate escape, which has no UTF-8 form`;
    case 'too-deep':
      return `${what} nests deeper than ${MAX_JSON_DEPTH} levels`;
  }
}
