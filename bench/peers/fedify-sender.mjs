/**
 * The sender of the Fedify pair: one Fedify actor (`/users/sender`, an RSA key: Fedify 1.5 signs draft-cavage
 * HTTP signatures with RSASSA-PKCS1-v1_5) that sends Like activities to the receiver, each signed and POSTed by
 * Fedify's own delivery code (`sendActivity`, immediate: no queue between), `concurrency` at once: our node
 * delivers with 32 POSTs in flight.
 *
 *   node fedify-sender.mjs <port> [--context URL=FILE ...]
 *
 * `GET /send?to=<actor>&inbox=<inbox>&count=N&concurrency=C` sends N Likes and answers
 * `{"ms","sent","failed","firstError"}` once every POST has been answered; `GET /cpu` answers this process's CPU µs.
 */
import { randomUUID } from 'node:crypto';
import { createFederation, generateCryptoKeyPair, Like, MemoryKvStore, Person } from '@fedify/fedify';
import { args, contextLoader, cpuMicros, serve } from './fedify-http.mjs';

const { port, origin, contexts } = args();
const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
const federation = createFederation({
  kv: new MemoryKvStore(),
  allowPrivateAddress: true,
  contextLoaderFactory: () => contextLoader(contexts),
});
federation
  .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
    if (identifier !== 'sender') return null;
    const [pair] = await ctx.getActorKeyPairs(identifier);
    return new Person({
      id: ctx.getActorUri(identifier),
      preferredUsername: identifier,
      inbox: ctx.getInboxUri(identifier),
      publicKey: pair?.cryptographicKey,
    });
  })
  .setKeyPairsDispatcher(async (_ctx, identifier) => (identifier === 'sender' ? [keys] : []));
federation.setInboxListeners('/users/{identifier}/inbox', '/inbox');

async function send(query) {
  const count = Number(query.get('count'));
  const concurrency = Number(query.get('concurrency') ?? 32);
  const recipient = { id: new URL(query.get('to')), inboxId: new URL(query.get('inbox')) };
  const ctx = federation.createContext(new URL(origin), undefined);
  const actor = ctx.getActorUri('sender');
  let next = 0;
  let failed = 0;
  let firstError;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const like = new Like({
          id: new URL(`${origin}/likes/${randomUUID()}`),
          actor,
          object: new URL(`https://anchors.example/${randomUUID()}`),
          to: recipient.id,
        });
        try {
          await ctx.sendActivity({ identifier: 'sender' }, recipient, like, { immediate: true });
        } catch (error) {
          failed++;
          firstError ??= String(error?.message ?? error);
        }
      }
    }),
  );
  return JSON.stringify({ ms: performance.now() - started, sent: count - failed, failed, firstError });
}

await serve(federation, port, { '/send': send, '/cpu': cpuMicros });
console.log(`fedify sender at ${origin}/users/sender`);
