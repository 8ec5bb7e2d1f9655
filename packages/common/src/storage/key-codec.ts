/**
 * Order-preserving byte encoding of index values, so that comparing encoded keys bytewise gives the index
 * order of the contract: numbers < strings < booleans, numbers numerically, strings by Unicode code point
 * (UTF-8 byte order, the order MongoDB uses without a collation), false < true.
 *
 * Every encoded component starts with a type tag below 0xFF, so "all keys starting with P" is the byte
 * range [P, P + 0xFF): that is how prefix and range scans are bounded.
 */
import type { IndexValue } from './types.js';

export const TAG_NUMBER = 0x10;
export const TAG_STRING = 0x20;
export const TAG_BOOLEAN = 0x30;
/** Greater than every tag: appended to a prefix it bounds the prefix's range from above. */
export const AFTER_ALL = 0xff;

export type ValueType = 'number' | 'string' | 'boolean';

export function typeTag(type: ValueType): number {
  return type === 'number' ? TAG_NUMBER : type === 'string' ? TAG_STRING : TAG_BOOLEAN;
}

/** Incremental builder: avoids concatenating many small buffers on the hot path. */
export class KeyBuilder {
  private buf: Buffer;
  private len = 0;

  constructor(capacity = 64) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + extra));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  byte(b: number): this {
    this.ensure(1);
    this.buf[this.len++] = b;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  /** A string component: tag, UTF-8 with 0x00 escaped as 00 FF, terminated by 00 01 (so "a" < "a\0" < "ab"). */
  string(s: string): this {
    this.ensure(1 + s.length * 3 + 2);
    this.buf[this.len++] = TAG_STRING;
    const start = this.len;
    const written = this.buf.write(s, start, 'utf8');
    if (s.includes('\u0000')) {
      const raw = Buffer.from(this.buf.subarray(start, start + written));
      this.ensure(raw.length * 2 + 2);
      let at = start;
      for (const b of raw) {
        this.buf[at++] = b;
        if (b === 0) this.buf[at++] = 0xff;
      }
      this.len = at;
    } else {
      this.len = start + written;
    }
    this.buf[this.len++] = 0x00;
    this.buf[this.len++] = 0x01;
    return this;
  }

  number(n: number): this {
    this.ensure(9);
    this.buf[this.len++] = TAG_NUMBER;
    // IEEE 754 made bytewise-sortable: flip all bits of negatives, only the sign bit of positives.
    this.buf.writeDoubleBE(n === 0 ? 0 : n, this.len);
    if (this.buf[this.len]! & 0x80) {
      for (let i = 0; i < 8; i++) this.buf[this.len + i] = ~this.buf[this.len + i]! & 0xff;
    } else {
      this.buf[this.len] = this.buf[this.len]! | 0x80;
    }
    this.len += 8;
    return this;
  }

  boolean(b: boolean): this {
    this.ensure(2);
    this.buf[this.len++] = TAG_BOOLEAN;
    this.buf[this.len++] = b ? 1 : 0;
    return this;
  }

  value(v: IndexValue): this {
    if (typeof v === 'number') return this.number(v);
    if (typeof v === 'string') return this.string(v);
    return this.boolean(v);
  }

  reset(): this {
    this.len = 0;
    return this;
  }

  get length(): number {
    return this.len;
  }

  /** A copy of the bytes written so far (the builder may keep being used). */
  build(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }
}

export const key = (): KeyBuilder => new KeyBuilder();

/** `prefix` followed by 0xFF: the exclusive upper bound of every key that starts with `prefix`. */
export function afterPrefix(prefix: Buffer): Buffer {
  const out = Buffer.allocUnsafe(prefix.length + 1);
  prefix.copy(out);
  out[prefix.length] = AFTER_ALL;
  return out;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** Reads the string component starting at `offset` (which holds its tag); returns it and the offset after it. */
export function readString(buf: Buffer, offset: number): { value: string; end: number } {
  if (buf[offset] !== TAG_STRING) throw new Error(`corrupt key: expected a string component at ${offset}`);
  const start = offset + 1;
  let i = buf.indexOf(0, start);
  if (i < 0 || i + 1 >= buf.length) throw new Error('corrupt key: unterminated string component');
  if (buf[i + 1] === 0x01) return { value: buf.toString('utf8', start, i), end: i + 2 };
  // Escaped NULs: unescape byte by byte.
  const bytes: number[] = [...buf.subarray(start, i)];
  for (;;) {
    if (i + 1 >= buf.length) throw new Error('corrupt key: unterminated string component');
    const b = buf[i]!;
    if (b === 0) {
      const next = buf[i + 1];
      if (next === 0x01) return { value: Buffer.from(bytes).toString('utf8'), end: i + 2 };
      if (next !== 0xff) throw new Error('corrupt key: bad escape in string component');
      bytes.push(0);
      i += 2;
      continue;
    }
    bytes.push(b);
    i++;
  }
}

/** Reads any value component starting at `offset`. */
export function readValue(buf: Buffer, offset: number): { value: IndexValue; end: number } {
  const tag = buf[offset];
  if (tag === TAG_STRING) return readString(buf, offset);
  if (tag === TAG_NUMBER) {
    if (offset + 9 > buf.length) throw new Error('corrupt key: truncated number component');
    const raw = Buffer.from(buf.subarray(offset + 1, offset + 9));
    if (raw[0]! & 0x80) raw[0] = raw[0]! & 0x7f;
    else for (let i = 0; i < 8; i++) raw[i] = ~raw[i]! & 0xff;
    return { value: raw.readDoubleBE(0), end: offset + 9 };
  }
  if (tag === TAG_BOOLEAN) {
    if (offset + 2 > buf.length) throw new Error('corrupt key: truncated boolean component');
    return { value: buf[offset + 1] === 1, end: offset + 2 };
  }
  throw new Error(`corrupt key: unknown component tag ${String(tag)} at ${offset}`);
}
