import type { Principal } from '@anchor/common/http';
import { describe, expect, it } from 'vitest';
import { statusOf } from './activitypub.test-helpers.js';
import { checkInboxCredentials, checkOutboxPoster, checkSignerIsActor } from './authorization.js';

const ME = 'https://a.example.com/services/node';
const PEER = 'https://b.example.com/services/node';
const signedBy = (actor: string): Principal => ({ kind: 'signature', actor, keyId: `${actor}/keys/main-key` });
const anonymous: Principal = { kind: 'anonymous' };
const admin: Principal = { kind: 'token', name: 'admin' };

describe('inbox POST', () => {
  it('admits a signed request, or a token the rules accepted', () => {
    expect(statusOf(() => checkInboxCredentials(signedBy(PEER), false))).toBe('ok');
    expect(statusOf(() => checkInboxCredentials(admin, true))).toBe('ok');
  });

  it('refuses an unsigned request with 401 even where no token rule covers the inbox (open path)', () => {
    expect(statusOf(() => checkInboxCredentials(anonymous, true))).toBe(401);
    expect(statusOf(() => checkInboxCredentials(anonymous, false))).toBe(401);
  });

  it('a signed activity must be by its signer', () => {
    expect(statusOf(() => checkSignerIsActor(signedBy(PEER), PEER))).toBe('ok');
    expect(statusOf(() => checkSignerIsActor(signedBy(PEER), ME))).toBe(401);
    // A token holder (an operator's tool) may post for anyone.
    expect(statusOf(() => checkSignerIsActor(admin, PEER))).toBe('ok');
  });
});

describe('outbox POST', () => {
  it('needs the administrator token (where tokens are defined) or this service signing', () => {
    expect(statusOf(() => checkOutboxPoster(admin, true, ME))).toBe('ok');
    expect(statusOf(() => checkOutboxPoster(anonymous, true, ME))).toBe('ok');
    expect(statusOf(() => checkOutboxPoster(signedBy(ME), false, ME))).toBe('ok');
    expect(statusOf(() => checkOutboxPoster(signedBy(PEER), false, ME))).toBe(401);
    expect(statusOf(() => checkOutboxPoster(anonymous, false, ME))).toBe(401);
  });
});
