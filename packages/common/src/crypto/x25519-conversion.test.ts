import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { KeyPair, ed25519ToX25519 } from './index.js';

describe('ed25519ToX25519', () => {
  it('derives the did:key spec keyAgreement key of z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', () => {
    const ed = KeyPair.fromMultibase('z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK');
    expect(ed25519ToX25519(ed).publicKeyMultibase()).toBe('z6LSj72tK8brWgZja8NLRwPigth2T9QRiG1uH9oKZuKjdh9p');
  });

  it('matches @noble/curves for public and private keys, and the two halves belong together', () => {
    for (let i = 0; i < 20; i++) {
      const ed = KeyPair.generate('Ed25519');
      const seed = Buffer.from(ed.privateJwk().d!, 'base64url');
      const fromPublic = ed25519ToX25519(ed.toPublic());
      const fromPrivate = ed25519ToX25519(ed);
      expect(fromPublic.publicKeyBytes().equals(Buffer.from(ed25519.utils.toMontgomery(ed.publicKeyBytes())))).toBe(
        true,
      );
      expect(fromPrivate.publicKey.equals(fromPublic.publicKey)).toBe(true);
      const peer = KeyPair.generate('X25519');
      const nobleShared = x25519.getSharedSecret(ed25519.utils.toMontgomerySecret(seed), peer.publicKeyBytes());
      expect(fromPrivate.ecdh(peer).equals(Buffer.from(nobleShared))).toBe(true);
    }
  });

  it('refuses other key types', () => {
    expect(() => ed25519ToX25519(KeyPair.generate('P-256'))).toThrow('only Ed25519 keys convert to X25519, not P-256');
  });
});
