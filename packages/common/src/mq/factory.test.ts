import { describe, expect, it } from 'vitest';
import { createMessageQueue } from './factory.js';

describe('message queue factory', () => {
  it('gives the in-process queue for an empty URL', async () => {
    for (const url of [undefined, '', '  ']) {
      const q = await createMessageQueue(url === undefined ? {} : { url });
      expect(q.kind).toBe('mem');
      await q.close();
    }
  });

  it('connects to AMQP for amqp:// URLs (failing clearly, password masked, when nothing listens)', async () => {
    const error = await createMessageQueue({ url: 'amqp://user:secret@127.0.0.1:1', connectTimeoutMs: 300 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toMatch(/cannot connect to amqp:\/\/user:\*\*\*@127\.0\.0\.1:1 within 300 ms/);
    expect(error?.message).not.toContain('secret');
  });

  it('refuses other URLs and bad options', async () => {
    await expect(createMessageQueue({ url: 'kafka://broker' })).rejects.toThrow(/unsupported message queue URL/);
    await expect(createMessageQueue({ url: 'http://u:pw@x' })).rejects.toThrow(/u:\*\*\*@x/);
    await expect(createMessageQueue({ maxAttempts: 0 })).rejects.toThrow(/maxAttempts/);
    await expect(createMessageQueue({ url: 'amqp://x', publishTimeoutMs: 0 })).rejects.toThrow(/publishTimeoutMs/);
  });
});
