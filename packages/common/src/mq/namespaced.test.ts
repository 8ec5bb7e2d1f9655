import { describe, expect, it } from 'vitest';
import { createMemMessageQueue } from './mem.js';
import { checkNamespace, IDENTITY_HEADER, namespacedQueue, namespaceFor } from './namespaced.js';
import type { Delivery, MessageQueue } from './types.js';

const fast = { maxAttempts: 3, backoff: { initialMs: 5, multiplier: 1, maxMs: 5 } };

function collect(queue: MessageQueue, topic: string): Promise<{ seen: Delivery[] }> {
  const seen: Delivery[] = [];
  return queue
    .subscribe(topic, async (d) => {
      seen.push(d);
    })
    .then(() => ({ seen }));
}

const until = async (check: () => boolean, ms = 2_000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('namespaceFor', () => {
  it('derives a readable, valid namespace from a service id', () => {
    expect(namespaceFor('https://node1.example.com/services/node')).toBe('node1.example.com_services_node');
    expect(namespaceFor('http://127.0.0.1:8081/services/node')).toBe('127.0.0.1_8081_services_node');
    expect(namespaceFor('did:web:node1.example.com')).toBe('did_web_node1.example.com');
    for (const id of ['https://a.example/x', 'https://' + 'a'.repeat(300), '///', 'did:web:x']) {
      expect(checkNamespace(namespaceFor(id))).toBeUndefined();
    }
  });

  it('keeps long identities apart that share their first characters', () => {
    const a = namespaceFor(`https://${'a'.repeat(100)}/one`);
    const b = namespaceFor(`https://${'a'.repeat(100)}/two`);
    expect(a).not.toBe(b);
    expect(a.length).toBeLessThanOrEqual(80);
  });

  it('refuses bad explicit namespaces', () => {
    expect(checkNamespace('')).toMatch(/1-100/);
    expect(checkNamespace('a/b')).toMatch(/letters/);
    expect(checkNamespace('.a')).toMatch(/starting/);
    expect(() => namespacedQueue(createMemMessageQueue(), { namespace: 'a b', identity: 'x' })).toThrow(
      /MQ namespace "a b"/,
    );
    expect(() => namespaceFor('')).toThrow(/non-empty identity/);
  });
});

describe('namespaced queue', () => {
  it('puts every topic under the namespace and stamps the identity', async () => {
    const broker = createMemMessageQueue(fast);
    const node = namespacedQueue(broker, { namespace: 'n1', identity: 'https://n1/services/node' });
    const raw = await collect(broker, 'n1.node.anchor');
    await node.publish('node.anchor', { op: 1 });
    await until(() => raw.seen.length === 1);
    expect(raw.seen[0]!.headers[IDENTITY_HEADER]).toBe('https://n1/services/node');
    // The handler sees its own topic name, not the broker's queue name.
    const mine = await collect(node, 'node.other');
    await node.publish('node.other', { op: 2 });
    await until(() => mine.seen.length === 1);
    expect(mine.seen[0]!.topic).toBe('node.other');
    expect(mine.seen[0]!.body).toEqual({ op: 2 });
    await broker.close();
  });

  it('keeps two services on one broker apart: each consumes exactly its own', async () => {
    const broker = createMemMessageQueue(fast);
    const one = namespacedQueue(broker, {
      namespace: namespaceFor('https://one/services/node'),
      identity: 'https://one/services/node',
    });
    const two = namespacedQueue(broker, {
      namespace: namespaceFor('https://two/services/node'),
      identity: 'https://two/services/node',
    });
    const a = await collect(one, 'node.anchor');
    const b = await collect(two, 'node.anchor');
    for (let i = 0; i < 50; i++) {
      await one.publish('node.anchor', { from: 'one', i });
      await two.publish('node.anchor', { from: 'two', i });
    }
    await until(() => a.seen.length === 50 && b.seen.length === 50);
    expect(a.seen.every((d) => (d.body as { from: string }).from === 'one')).toBe(true);
    expect(b.seen.every((d) => (d.body as { from: string }).from === 'two')).toBe(true);
    await broker.close();
  });

  it('refuses a message of another identity on a shared namespace, without losing it', async () => {
    const broker = createMemMessageQueue(fast);
    const foreign: Array<string | undefined> = [];
    const mine = namespacedQueue(broker, {
      namespace: 'shared',
      identity: 'me',
      onForeignMessage: (_t, who) => foreign.push(who),
    });
    const theirs = namespacedQueue(broker, { namespace: 'shared', identity: 'them' });
    const handled: unknown[] = [];
    await mine.subscribe('work', async (d) => {
      handled.push(d.body);
    });
    const dead = await collect(broker, 'shared.work.dead');
    await theirs.publish('work', { secret: 1 });
    await broker.publish('shared.work', { unnamed: 1 });
    // Nobody of either identity but "me" consumes: after the attempts both end as dead letters, never handled.
    await until(() => dead.seen.length === 2);
    expect(handled).toEqual([]);
    expect(foreign).toContain('them');
    expect(foreign).toContain(undefined);
    expect(dead.seen.map((d) => d.headers['x-dead-letter-reason'])).toEqual(['max-attempts', 'max-attempts']);
    expect(dead.seen.map((d) => d.headers['x-dead-letter-error']).join(' ')).toMatch(
      /published by "them", not by this service \(me\): refused/,
    );
    await broker.close();
  });
});
