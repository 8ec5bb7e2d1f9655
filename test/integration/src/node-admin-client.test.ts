import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeAdminClient } from '@anchor/common/clients';
import { startTestNode, type TestNode } from '@anchor/node/testing';

const ACCEPT_LISTS = ['--follow-auth-policy', 'accept-list', '--invite-witness-auth-policy', 'accept-list'];

describe('NodeAdminClient against real nodes', () => {
  let first: TestNode;
  let second: TestNode;
  let admin1: NodeAdminClient;
  let admin2: NodeAdminClient;

  beforeAll(async () => {
    [first, second] = await Promise.all([startTestNode({ args: ACCEPT_LISTS }), startTestNode({ args: ACCEPT_LISTS })]);
    admin1 = new NodeAdminClient({ url: first.url });
    admin2 = new NodeAdminClient({ url: second.url });
  });
  afterAll(async () => {
    admin1.close();
    admin2.close();
    await Promise.all([first.stop(), second.stop()]);
  });

  it('reads the service id from the actor document', async () => {
    expect(await admin1.serviceId()).toBe(`${first.url}/services/node`);
  });

  it('edits accept lists idempotently', async () => {
    const peer = await admin1.serviceId();
    expect(await admin2.allow('follow', [peer])).toEqual([
      { type: 'follow', url: [peer] },
      { type: 'invite-witness', url: [] },
    ]);
    await admin2.allow('follow', [peer]);
    await admin2.allow('invite-witness', [peer]);
    expect(await admin2.acceptLists()).toEqual([
      { type: 'follow', url: [peer] },
      { type: 'invite-witness', url: [peer] },
    ]);
    await admin2.disallow('invite-witness', [peer]);
    expect((await admin2.acceptLists())[1]).toEqual({ type: 'invite-witness', url: [] });
  });

  it('follows and invites through the outbox; the collections fill when the other node accepts', async () => {
    const me = await admin1.serviceId();
    const other = await admin2.serviceId();
    await admin2.allow('follow', [me]);
    await admin2.allow('invite-witness', [me]);

    const followId = await admin1.follow(other);
    expect(followId.startsWith(`${first.url}/services/node/activities/`)).toBe(true);
    await admin1.waitUntilIn('following', other, 20_000);
    expect(await admin2.collection('followers')).toEqual([me]);

    await admin1.inviteWitness(other);
    await admin1.waitUntilIn('witnesses', other, 20_000);
    expect(await admin2.collection('witnessing')).toEqual([me]);
  });

  it('does not gain a followee that has not accept-listed it', async () => {
    const me = await admin2.serviceId();
    const other = await admin1.serviceId();
    await admin1.disallow('follow', [me]);
    const followId = await admin2.follow(other);
    const rejected = async () =>
      (await admin2.activities('inbox')).find(
        (activity) => activity.type === 'Reject' && (activity.object as { id?: unknown } | undefined)?.id === followId,
      );
    const deadline = Date.now() + 20_000;
    while (!(await rejected()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await rejected()).toMatchObject({ actor: other });
    expect(await admin2.collection('following')).toEqual([]);
    expect(await admin1.collection('followers')).toEqual([]);
  });

  it('sets, reads and clears the witness policy', async () => {
    expect(await admin1.witnessPolicy()).toBeUndefined();
    expect(await admin1.setWitnessPolicy('MinPercent(100,batch)   AND MinPercent(50,system)')).toBe(
      'MinPercent(100,batch) AND MinPercent(50,system)',
    );
    expect(await admin1.witnessPolicy()).toBe('MinPercent(100,batch) AND MinPercent(50,system)');
    await expect(admin1.setWitnessPolicy('Sometimes(3)')).rejects.toMatchObject({ status: 400 });
    expect(await admin1.setWitnessPolicy('')).toBeUndefined();
    expect(await admin1.witnessPolicy()).toBeUndefined();
  });

  it('sets, reads and clears the log', async () => {
    expect(await admin1.log()).toBeUndefined();
    expect(await admin1.setLog('http://127.0.0.1:9/main/')).toBe('http://127.0.0.1:9/main');
    expect(await admin1.log()).toBe('http://127.0.0.1:9/main');
    expect(await admin1.setLog('')).toBeUndefined();
    expect(await admin1.log()).toBeUndefined();
  });

  it('reports health', async () => {
    const health = await admin1.health();
    expect(health).toMatchObject({ healthy: true, status: 200, body: { dbStatus: 'success', mqStatus: 'success' } });
  });
});

describe('NodeAdminClient with an admin token', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({
      args: [
        '--auth-tokens-def',
        '^/policy$||admin',
        '--auth-tokens-def',
        '^/services/node/outbox$||admin',
        '--auth-tokens',
        'admin=s3cret',
      ],
    });
  });
  afterAll(async () => {
    await node.stop();
  });

  it('sends the token when given one, and the node refuses the same call without it', async () => {
    const withToken = new NodeAdminClient({ url: node.url, adminToken: 's3cret' });
    const without = new NodeAdminClient({ url: node.url });
    try {
      expect(await withToken.setWitnessPolicy('OutOf(1,system)')).toBe('OutOf(1,system)');
      await expect(without.setWitnessPolicy('OutOf(2,system)')).rejects.toMatchObject({ status: 401 });
      expect(await withToken.witnessPolicy()).toBe('OutOf(1,system)');
      // Following itself: an outbox post that is stored but delivered nowhere.
      const self = await withToken.serviceId();
      await expect(without.follow(self)).rejects.toMatchObject({ status: 401 });
      expect(await withToken.follow(self)).toMatch(/\/services\/node\/activities\//);
    } finally {
      withToken.close();
      without.close();
    }
  });
});
