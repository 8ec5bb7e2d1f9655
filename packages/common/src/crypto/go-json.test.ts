import { describe, expect, it } from 'vitest';
import { goJsonMarshal } from './index.js';

/** Expected strings are what Go's encoding/json writes for the same decoded value (map keys sorted, HTML-safe). */
describe('goJsonMarshal', () => {
  it('sorts keys at every depth and writes compact JSON', () => {
    expect(goJsonMarshal({ kid: 'k', alg: 'ES256', nested: { z: [3, { b: 1, a: 2 }], a: null } })).toBe(
      '{"alg":"ES256","kid":"k","nested":{"a":null,"z":[3,{"a":2,"b":1}]}}',
    );
  });

  it('sorts by UTF-8 bytes, not UTF-16 code units', () => {
    // U+FF61 is EF BD A1 in UTF-8 and 0xFF61 in UTF-16; U+1F600 is F0 9F 98 80 and 0xD83D 0xDE00.
    // UTF-16 order puts the emoji first; Go (bytes) puts U+FF61 first.
    expect(goJsonMarshal({ '\u{1F600}': 1, '\uFF61': 2 })).toBe('{"\uFF61":2,"\u{1F600}":1}');
  });

  it('escapes like Go: HTML characters, line separators, control characters', () => {
    expect(goJsonMarshal('a<b>&c')).toBe('"a\\u003cb\\u003e\\u0026c"');
    expect(goJsonMarshal('\u2028\u2029')).toBe('"\\u2028\\u2029"');
    expect(goJsonMarshal('"\\\n\r\t\u0001\u001f/é')).toBe('"\\"\\\\\\n\\r\\t\\u0001\\u001f/é"');
    expect(goJsonMarshal('\uD800')).toBe('"\uFFFD"');
  });

  it('formats numbers like Go float64 and rejects what JSON cannot hold', () => {
    expect(goJsonMarshal([1, -0, 1.5, 1e21, 1e-7, 123456789012])).toBe('[1,-0,1.5,1e+21,1e-7,123456789012]');
    expect(goJsonMarshal({ a: undefined, b: false })).toBe('{"b":false}');
    expect(() => goJsonMarshal(Number.NaN)).toThrow('non-finite');
    expect(() => goJsonMarshal({ f: () => 1 })).toThrow('cannot represent a function');
  });
});
