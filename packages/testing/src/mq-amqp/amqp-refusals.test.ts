import { createMessageQueue } from '@anchor/common/mq';
import { describe, expect, it } from 'vitest';
import { AMQP_URL, amqpUnavailable } from '../amqp-broker/index.js';
import { expectAppError } from '../contract-kit/index.js';

/**
 * A broker that refuses is answered in plain words at once; only an unreachable one is retried. An unknown
 * vhost used to retry for the whole connect timeout and end in "Expected ConnectionOpenOk; got <ConnectionClose>".
 */
const unavailable = await amqpUnavailable();
if (unavailable) console.warn(`AMQP refusal tests skipped: RabbitMQ unreachable (${unavailable})`);

describe.skipIf(unavailable !== undefined)('AMQP refusals', () => {
  it('reports an unknown virtual host at once, by name', async () => {
    const url = new URL(AMQP_URL);
    url.pathname = '/no-such-vhost';
    const started = Date.now();
    await expectAppError(
      createMessageQueue({ url: url.toString(), connectTimeoutMs: 20_000 }),
      'unavailable',
      /refused the virtual host "no-such-vhost": it does not exist, or the user may not use it/,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses a malformed URL before connecting', async () => {
    const started = Date.now();
    await expectAppError(
      createMessageQueue({ url: AMQP_URL.replace(/:\d+/, ':notaport'), connectTimeoutMs: 20_000 }),
      'bad_request',
      /is not a valid URL/,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
