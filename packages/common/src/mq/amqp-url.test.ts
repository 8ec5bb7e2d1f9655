import { describe, expect, it } from 'vitest';
import { checkAmqpUrl, createAmqpMessageQueue } from './amqp.js';

describe('AMQP URLs are checked before any connection', () => {
  it('accepts the forms brokers are given in', () => {
    for (const url of [
      'amqp://localhost',
      'amqp://guest:guest@127.0.0.1:5672',
      'amqps://u:p@broker.example:5671/node1',
      'amqp://h/%2Fnested',
      'amqp://h?heartbeat=10',
    ]) {
      expect(checkAmqpUrl(url), url).toBeUndefined();
    }
  });

  it('names what is wrong with a malformed one', () => {
    expect(checkAmqpUrl('amqp://guest:guest@127.0.0.1:notaport')).toMatch(
      /not a valid URL .*port is a number from 1 to 65535/,
    );
    expect(checkAmqpUrl('amqp://h:99999')).toMatch(/not a valid URL/);
    expect(checkAmqpUrl('amqp://h:0')).toBe('has port 0');
    expect(checkAmqpUrl('http://h')).toBe('must start with amqp:// or amqps://, not http://');
    expect(checkAmqpUrl('amqp://h/a/b')).toMatch(/more than one path segment/);
    expect(checkAmqpUrl('amqp://h?heartbeat=ten')).toBe('has a non-numeric heartbeat');
  });

  it('fails at once, password masked, instead of retrying for the connect timeout', async () => {
    const started = Date.now();
    const error = await createAmqpMessageQueue({
      url: 'amqp://guest:secret@127.0.0.1:notaport',
      connectTimeoutMs: 30_000,
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(error?.message).toBe(
      'amqp URL amqp://guest:***@127.0.0.1:notaport is not a valid URL (check the host and that the port is a number from 1 to 65535)',
    );
  });
});
