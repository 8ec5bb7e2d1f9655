import { KeyPair, type Jwk } from '@anchor/common/crypto';

/**
 * The public JWK of a key pair, or of a JWK (kty, crv, x and y only: private and descriptive members are
 * left out, so a private JWK can be passed safely).
 */
export function publicJwkOf(key: KeyPair | Jwk): Jwk {
  if (key instanceof KeyPair) return key.publicJwk();
  const jwk: Jwk = { kty: key.kty };
  if (key.crv !== undefined) jwk.crv = key.crv;
  if (key.x !== undefined) jwk.x = key.x;
  if (key.y !== undefined) jwk.y = key.y;
  return jwk;
}
