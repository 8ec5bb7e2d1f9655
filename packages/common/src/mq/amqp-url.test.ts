import { describe, expect, it } from 'vitest';
import { checkAmqpUrl, checkAmqpUrls, createAmqpMessageQueue, splitAmqpUrls } from './amqp.js';

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

  it('takes the members of a cluster as a comma-separated list, checking each', () => {
    expect(splitAmqpUrls('amqp://a:5672, amqp://b:5672 ,amqp://c')).toEqual([
      'amqp://a:5672',
      'amqp://b:5672',
      'amqp://c',
    ]);
    expect(checkAmqpUrls('amqp://guest:guest@127.0.0.1:5672')).toBeUndefined();
    expect(checkAmqpUrls('amqp://u:p@a:5672,amqp://u:p@b:5672,amqps://u:p@c:5671/vh')).toBeUndefined();
    expect(checkAmqpUrls('amqp://u:secret@a,amqp://u:secret@b:notaport')).toBe(
      'address 2 of 2 (amqp://u:***@b:notaport) is not a valid URL (check the host and that the port is a number from 1 to 65535)',
    );
    expect(checkAmqpUrls('amqp://a,http://b')).toBe(
      'address 2 of 2 (http://b) must start with amqp:// or amqps://, not http://',
    );
    expect(checkAmqpUrls('amqp://a,,amqp://b')).toBe(
      'has an empty address (number 2 of 3) in its comma-separated list',
    );
    expect(checkAmqpUrls('amqp://a:5672,amqp://a:5672')).toBe('names a:5672 twice');
    // One URL keeps the single-URL message.
    expect(checkAmqpUrls('amqp://h:0')).toBe('has port 0');
  });

  it('refuses a bad list at once, naming the address and not the password', async () => {
    const error = await createAmqpMessageQueue({ url: 'amqp://u:secret@127.0.0.1:1,amqp://u:secret@h:0' }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/address 2 of 2 \(amqp:\/\/u:\*\*\*@h:0\) has port 0/);
    expect(error?.message).not.toMatch(/secret/);
  });
});
