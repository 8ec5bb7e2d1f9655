import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppError } from '../errors/index.js';
import {
  describeJsonDefect,
  findJsonDefect,
  MAX_JSON_DEPTH,
  parseStrictJson,
  RESERVED_MEMBER_NAMES,
} from './strict-json.js';

describe('findJsonDefect', () => {
  it('finds duplicate member names, escaped or not, at any depth, by path', () => {
    expect(findJsonDefect('{"a":1,"a":2}')).toEqual({ path: 'a', problem: 'duplicate-member' });
    expect(findJsonDefect('{"a":1,"\\u0061":2}')).toEqual({ path: 'a', problem: 'duplicate-member' });
    expect(findJsonDefect('{"delta":{"patches":[{"action":"replace"},{"action":"x", "action" : "y"}]}}')).toEqual({
      path: 'delta.patches[1].action',
      problem: 'duplicate-member',
    });
    // The same name in sibling objects is not a duplicate.
    expect(findJsonDefect('{"a":{"x":1},"b":{"x":1},"c":[{"x":1},{"x":2}]}')).toBeUndefined();
  });

  it('finds lone surrogate escapes in values and names', () => {
    expect(findJsonDefect('{"crv":"\\ud800"}')).toEqual({ path: 'crv', problem: 'lone-surrogate' });
    expect(findJsonDefect('{"k":["ok","\\udc00x"]}')).toEqual({ path: 'k[1]', problem: 'lone-surrogate' });
    expect(findJsonDefect('{"\\ud800":1}')).toEqual({ path: '\ud800', problem: 'lone-surrogate' });
    expect(findJsonDefect('"\\ud83d\\ude00"')).toBeUndefined();
    // Unescaped lone surrogates (text that did not come from UTF-8), in a value and in a name.
    expect(findJsonDefect('{"a":"ok","b":["x", "y\ud800"]}')).toEqual({ path: 'b[1]', problem: 'lone-surrogate' });
    expect(findJsonDefect('{"a":{"\udc00":1}}')).toEqual({ path: 'a.\udc00', problem: 'lone-surrogate' });
    expect(findJsonDefect('{"emoji":"😀","q":"a\\"b\\\\"}')).toBeUndefined();
  });

  it('finds a duplicate among many members', () => {
    const names = Array.from({ length: 40 }, (_, i) => `m${i}`);
    const text = (extra: string) => `{"o":{${names.map((n) => `"${n}":1`).join(',')}${extra}}}`;
    expect(findJsonDefect(text(''))).toBeUndefined();
    expect(findJsonDefect(text(',"m3":2'))).toEqual({ path: 'o.m3', problem: 'duplicate-member' });
    expect(findJsonDefect(text(',"m39":2'))).toEqual({ path: 'o.m39', problem: 'duplicate-member' });
  });

  it('refuses nesting beyond the bound instead of overflowing the stack', () => {
    expect(findJsonDefect('['.repeat(MAX_JSON_DEPTH + 5) + ']'.repeat(MAX_JSON_DEPTH + 5))?.problem).toBe('too-deep');
    expect(findJsonDefect('['.repeat(50) + ']'.repeat(50))).toBeUndefined();
  });

  it('names the member in its message', () => {
    expect(describeJsonDefect({ path: 'a.b', problem: 'duplicate-member' }, 'operation request')).toBe(
      'operation request has the member a.b more than once; duplicate member names are refused',
    );
    expect(describeJsonDefect({ path: 'delta.x', problem: 'lone-surrogate' }, 'operation request')).toMatch(
      /member delta\.x contains a lone UTF-16 surrogate/,
    );
  });

  it('finds nothing in any JSON.stringify output and agrees with JSON.parse on duplicates (property, fixed seed)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        const defect = findJsonDefect(text);
        // JSON.stringify never repeats a name; a lone surrogate is escaped as such since ES2019; fast-check
        // generates __proto__ and constructor members on purpose.
        if (defect) expect(['lone-surrogate', 'reserved-member']).toContain(defect.problem);
        else expect(JSON.stringify(JSON.parse(text))).toBe(text);
      }),
      { seed: 20261126, numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.integer(), { minKeys: 1 }), fc.nat(), (dict, pick) => {
        const keys = Object.keys(dict);
        const dup = keys[pick % keys.length]!;
        const text = `{${keys.map((k) => `${JSON.stringify(k)}:1`).join(',')},${JSON.stringify(dup)}:2}`;
        const defect = findJsonDefect(text);
        if (
          !(dup as string & { isWellFormed(): boolean }).isWellFormed() ||
          keys.some((k) => !(k as string & { isWellFormed(): boolean }).isWellFormed()) ||
          keys.some((k) => RESERVED_MEMBER_NAMES.has(k))
        )
          return;
        expect(defect).toEqual({ path: dup, problem: 'duplicate-member' });
      }),
      { seed: 20261126, numRuns: 300 },
    );
  });
});

describe('reserved member names', () => {
  it('finds __proto__, constructor and prototype anywhere, by their path', () => {
    expect(findJsonDefect('{"__proto__":{"admin":true}}')).toEqual({ path: '__proto__', problem: 'reserved-member' });
    expect(findJsonDefect('{"a":[{"b":{"constructor":1}}]}')).toEqual({
      path: 'a[0].b.constructor',
      problem: 'reserved-member',
    });
    expect(findJsonDefect('{"s":{"\\u005f_proto__":1}}')).toEqual({ path: 's.__proto__', problem: 'reserved-member' });
    expect(findJsonDefect('{"prototype":0}')?.problem).toBe('reserved-member');
    // As values they are ordinary strings.
    expect(findJsonDefect('{"name":"__proto__","list":["constructor"]}')).toBeUndefined();
  });
});

describe('parseStrictJson', () => {
  it('parses JSON that has none of the defects', () => {
    expect(parseStrictJson(Buffer.from('{"a":[1,"é"]}'), 'request body')).toEqual({ a: [1, 'é'] });
    expect(parseStrictJson('"x"', 'request body')).toBe('x');
  });

  it('refuses each defect with a 400 naming the member', () => {
    const refusal = (text: string | Buffer) => {
      try {
        parseStrictJson(text, 'request body');
      } catch (error) {
        return { status: (error as AppError).status, message: (error as Error).message };
      }
      return undefined;
    };
    expect(refusal('{"credentialSubject":{"__proto__":{"admin":true}}}')).toEqual({
      status: 400,
      message:
        'request body has a member named credentialSubject.__proto__; the names __proto__, constructor, prototype are refused',
    });
    expect(refusal('{"issuer":"did:example:\\ud800"}')).toEqual({
      status: 400,
      message: 'request body member issuer contains a lone UTF-16 surrogate escape, which has no UTF-8 form',
    });
    expect(refusal('{"a":1,"a":2}')?.message).toMatch(/member a more than once/);
    expect(refusal('{"a":')).toMatchObject({ status: 400, message: expect.stringMatching(/^malformed JSON: /) });
    expect(refusal(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({ status: 400, message: 'request body is not UTF-8' });
  });
});
