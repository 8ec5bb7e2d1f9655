import { unauthorized } from '@anchor/common/errors';
import type { Principal } from '@anchor/common/http';

/**
 * Who may post to this service (spec Authentication rule 6), decided from the authenticated principal
 * alone. The readers of collections and of the outbox are decided in `collections.ts` from the
 * relationships in the store.
 */

/**
 * Inbox POST, checked before the body is read: a bearer token that the rules admit, or an HTTP signature.
 * An unsigned POST is refused even where no token rule covers the inbox: the inbox must know who speaks.
 */
export function checkInboxCredentials(principal: Principal, authorizedByToken: boolean): void {
  if (principal.kind === 'signature' || (principal.kind === 'token' && authorizedByToken)) return;
  throw unauthorized('an inbox POST must be HTTP-signed by its actor (or carry a bearer token)', {
    headers: { 'WWW-Authenticate': 'Signature' },
  });
}

/** A signed inbox POST speaks only for its signer: the activity's actor must be the signing service. */
export function checkSignerIsActor(principal: Principal, actor: string): void {
  if (principal.kind === 'signature' && principal.actor !== actor)
    throw unauthorized(`the activity's actor ${actor} is not the signer ${principal.actor}`);
}

/** Outbox POST: the administrator token (open where no token rule covers the outbox), or this service's own signature. */
export function checkOutboxPoster(principal: Principal, authorizedByToken: boolean, serviceId: string): void {
  if (authorizedByToken) return;
  if (principal.kind === 'signature' && principal.actor === serviceId) return;
  throw unauthorized('posting to the outbox needs the administrator token', {
    headers: { 'WWW-Authenticate': 'Bearer' },
  });
}
