import { describe, expect, it } from 'vitest';
import { identityHashOf } from './leaf-identity.js';

describe('leaf identity', () => {
  it('identifies a credential by the SHA-256 of its N-Quads, whatever the timestamp', () => {
    expect(identityHashOf('')).toBe(
      Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex').toString('base64url'),
    );
    expect(identityHashOf('a')).not.toBe(identityHashOf('b'));
  });
});
