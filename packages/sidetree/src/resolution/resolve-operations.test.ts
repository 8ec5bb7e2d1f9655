import { KeyPair } from '@anchor/common/crypto';
import { base64UrlEncode } from '@anchor/common/encoding';
import { beforeEach, describe, expect, it } from 'vitest';
import { createRequest, recoverRequest, updateRequest } from '../client/build-requests.js';
import { addAlsoKnownAs, addPublicKeys, addServices, documentKey, service } from '../client/patch-builders.js';
import type { UpdateRequest } from '../client/requests.js';
import { hashCanonical } from '../hashing.js';
import { parseOperation } from '../operations/parse-operation.js';
import type { Patch } from '../patches/types.js';
import { expectBadRequest, expectNotFound } from '../testing/assertions.test-helpers.js';
import { ORIGIN, START_TIME, TestLedger } from '../testing/ledger.test-helpers.js';
import { copy, requestFixture } from '../testing/requests.test-helpers.js';
import { resolveOperations } from './resolve-operations.js';
import type { PublishedOperationRecord } from './types.js';

const serviceIds = (ledger: TestLedger, suffix: string) =>
  ledger.resolve(suffix).document.services.map((entry) => entry.id);
const tag = (id: string) => [addServices(service(id, 'T', `https://${id}.example.com`))];

/** An update whose delta no longer matches the signed delta hash. */
function withTamperedDelta(request: UpdateRequest): UpdateRequest {
  const tampered = copy(request);
  tampered.delta.patches = tag('tampered');
  return tampered;
}

function withForgedSignature(request: UpdateRequest): UpdateRequest {
  const [header, payload] = request.signedData.split('.');
  return { ...request, signedData: `${header}.${payload}.${base64UrlEncode(Buffer.alloc(64, 1))}` };
}

describe('resolveOperations: finding the DID', () => {
  it('is not found without operations, without a create, or with operations of other DIDs only', () => {
    const fixture = requestFixture();
    const ledger = new TestLedger();
    expectNotFound(() => ledger.resolve(fixture.didSuffix), `DID ${fixture.didSuffix} not found`);
    ledger.anchor([fixture.update()]);
    expectNotFound(() => ledger.resolve(fixture.didSuffix), 'no create operation');
    const other = requestFixture();
    ledger.anchor([other.created.request]);
    expectNotFound(
      () => resolveOperations(fixture.didSuffix, { published: ledger.published.slice(1) }),
      'no create operation',
    );
    expect(ledger.resolve(other.didSuffix).didSuffix).toBe(other.didSuffix);
  });

  it('takes the first create, preferring published ones: a create with an unusable delta still creates the DID', () => {
    const fixture = requestFixture();
    const ledger = new TestLedger();
    const broken = copy(fixture.created.request);
    broken.delta.patches = tag('not-signed-up-for');
    ledger.submit(fixture.created.request);
    ledger.anchor([broken]);
    const model = ledger.resolve(fixture.didSuffix);
    expect(model.published).toBe(true);
    expect(model.updateCommitment).toBeUndefined();
    expect(model.recoveryCommitment).toBe(fixture.created.request.suffixData.recoveryCommitment);
    expect(model.document.services).toEqual([]);
    // Without an update commitment only a recover can change the DID.
    ledger.anchor([fixture.update()]);
    expect(ledger.resolve(fixture.didSuffix).appliedOperations).toHaveLength(1);
    ledger.anchor([fixture.recover({ patches: tag('recovered') })]);
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['recovered']);
  });
});

describe('resolveOperations: commitment chains', () => {
  let fixture: ReturnType<typeof requestFixture>;
  let ledger: TestLedger;
  const next = KeyPair.generate('Ed25519');
  beforeEach(() => {
    fixture = requestFixture();
    ledger = new TestLedger();
    ledger.anchor([fixture.created.request]);
    ledger.now += 10;
  });

  it('late publishing: of two updates revealing the same commitment the earlier anchor wins, whatever the input order', () => {
    const early = fixture.update({ patches: tag('early') });
    const late = fixture.update({ patches: tag('late') });
    ledger.anchor([late], { time: START_TIME + 20 });
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['hub', 'late']);
    // The earlier-anchored one becomes known later (e.g. its anchor was observed late).
    ledger.anchor([early], { time: START_TIME + 15 });
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['hub', 'early']);
  });

  it('skips invalid candidates (bad signature, bad delta hash, invalid patch) and applies the next valid one', () => {
    const valid = fixture.update({ patches: tag('valid') });
    const invalidPatch = [
      { action: 'add-services', services: [{ id: 'bad id', type: 'T', serviceEndpoint: 'https://x.example' }] },
    ] as unknown as Patch[];
    ledger.anchor([withForgedSignature(fixture.update({ patches: tag('forged') }))]);
    ledger.anchor([withTamperedDelta(fixture.update({ patches: tag('x') }))]);
    ledger.anchor([fixture.update({ patches: invalidPatch })]);
    ledger.anchor([valid]);
    const model = ledger.resolve(fixture.didSuffix);
    expect(model.document.services.map((entry) => entry.id)).toEqual(['hub', 'valid']);
    expect(model.appliedOperations.map((operation) => operation.type)).toEqual(['create', 'update']);
    expect(model.versionId).toBe(ledger.published.at(-1)?.anchor.canonicalReference);
  });

  it('never applies an operation that reveals a key nobody committed to', () => {
    const stranger = KeyPair.generate('Ed25519');
    ledger.anchor([
      updateRequest({
        didSuffix: fixture.didSuffix,
        updateKey: stranger,
        nextUpdateKey: next,
        patches: tag('stranger'),
      }),
    ]);
    ledger.anchor([
      recoverRequest({
        didSuffix: fixture.didSuffix,
        recoveryKey: stranger,
        nextRecoveryKey: next,
        nextUpdateKey: next,
        anchorOrigin: ORIGIN,
        patches: tag('stranger'),
      }),
    ]);
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['hub']);
  });

  it('refuses loops: a next commitment equal to the current one, or one already used', () => {
    // Same key as next key: would keep the commitment forever.
    ledger.anchor([fixture.update({ nextUpdateKey: fixture.keys.update, patches: tag('loop') })]);
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['hub']);
    // A → B, then B → A: the second is refused, and a later B → C in the same bucket is taken instead.
    ledger.anchor([fixture.update({ patches: tag('a-to-b') })]);
    ledger.anchor([
      updateRequest({
        didSuffix: fixture.didSuffix,
        updateKey: fixture.keys.nextUpdate,
        nextUpdateKey: fixture.keys.update,
        patches: tag('b-to-a'),
      }),
    ]);
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['hub', 'a-to-b']);
    ledger.anchor([
      updateRequest({
        didSuffix: fixture.didSuffix,
        updateKey: fixture.keys.nextUpdate,
        nextUpdateKey: next,
        patches: tag('b-to-c'),
      }),
    ]);
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['hub', 'a-to-b', 'b-to-c']);
  });

  it('a recover starts from an empty document; updates anchored before it are never replayed on top', () => {
    // The recover commits to an update key that an earlier update already revealed (a reused key).
    ledger.anchor([fixture.update({ patches: tag('before-recover') })]);
    ledger.anchor([fixture.recover({ nextUpdateKey: fixture.keys.update, patches: tag('recovered') })]);
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['recovered']);
    ledger.anchor([fixture.update({ nextUpdateKey: next, patches: tag('after-recover') })]);
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['recovered', 'after-recover']);
  });

  it('keeps an update anchored in the same second as the recover before it (orb drops it)', () => {
    const time = START_TIME + 100;
    ledger.anchor([fixture.recover({ patches: tag('recovered') })], { time, transactionNumber: 0 });
    ledger.anchor(
      [fixture.update({ updateKey: fixture.keys.nextUpdate, nextUpdateKey: next, patches: tag('same-second') })],
      { time, transactionNumber: 0 },
    );
    const model = ledger.resolve(fixture.didSuffix);
    expect(model.document.services.map((entry) => entry.id)).toEqual(['recovered', 'same-second']);
    // Order within a second follows transactionNumber when the observer sets one, whatever the input order.
    const [create, recover, update] = ledger.published as [
      PublishedOperationRecord,
      PublishedOperationRecord,
      PublishedOperationRecord,
    ];
    const reversed = resolveOperations(fixture.didSuffix, {
      published: [
        create,
        { ...update, anchor: { ...update.anchor, transactionNumber: 2 } },
        { ...recover, anchor: { ...recover.anchor, transactionNumber: 1 } },
      ],
    });
    expect(reversed.document.services.map((entry) => entry.id)).toEqual(['recovered', 'same-second']);
  });

  it('deactivation is terminal: later recover and update are ignored', () => {
    ledger.anchor([fixture.deactivate()]);
    ledger.anchor([fixture.recover({ patches: tag('too-late') })]);
    ledger.anchor([fixture.update({ patches: tag('too-late') })]);
    const model = ledger.resolve(fixture.didSuffix);
    expect(model.deactivated).toBe(true);
    expect(model.recoveryCommitment).toBeUndefined();
    expect(model.updateCommitment).toBeUndefined();
    expect(model.document.services).toEqual([]);
    expect(model.appliedOperations.map((operation) => operation.type)).toEqual(['create', 'deactivate']);
  });

  it('a recover with an unusable delta rotates the recovery commitment only and empties the document', () => {
    ledger.anchor([
      { ...fixture.recover(), delta: { patches: tag('not-signed'), updateCommitment: hashCanonical('x') } },
    ]);
    const model = ledger.resolve(fixture.didSuffix);
    expect(model.appliedOperations.map((operation) => operation.type)).toEqual(['create', 'recover']);
    expect(model.recoveryCommitment).not.toBe(fixture.created.request.suffixData.recoveryCommitment);
    expect(model.updateCommitment).toBeUndefined();
    expect(model.document.services).toEqual([]);
  });
});

describe('resolveOperations: anchor windows at resolution', () => {
  const fixture = requestFixture();
  const windowOf = { anchorFrom: START_TIME + 100, anchorUntil: START_TIME + 200 };
  const ledgerWithCreate = () => {
    const ledger = new TestLedger();
    ledger.anchor([fixture.created.request]);
    return ledger;
  };

  it('an update anchored outside its window rotates the commitment but leaves the document', () => {
    const ledger = ledgerWithCreate();
    ledger.anchor([fixture.update({ ...windowOf, patches: tag('outside') })], { time: START_TIME + 300 });
    const model = ledger.resolve(fixture.didSuffix);
    expect(model.document.services.map((entry) => entry.id)).toEqual(['hub']);
    expect(model.updateCommitment).toBe(fixture.update().delta.updateCommitment);
    ledger.anchor([
      updateRequest({
        didSuffix: fixture.didSuffix,
        updateKey: fixture.keys.nextUpdate,
        nextUpdateKey: KeyPair.generate('Ed25519'),
        patches: tag('next'),
      }),
    ]);
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['hub', 'next']);
  });

  it('inside the window the update applies; a lone anchorFrom gives the protocol window', () => {
    const ledger = ledgerWithCreate();
    ledger.anchor([fixture.update({ ...windowOf, patches: tag('inside') })], { time: START_TIME + 150 });
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['hub', 'inside']);
    const early = ledgerWithCreate();
    early.anchor([fixture.update({ anchorFrom: START_TIME + 100, patches: tag('early') })], { time: START_TIME + 50 });
    expect(serviceIds(early, fixture.didSuffix)).toEqual(['hub']);
    const lone = ledgerWithCreate();
    lone.anchor([fixture.update({ anchorFrom: START_TIME, patches: tag('lone') })], { time: START_TIME + 1700 });
    expect(serviceIds(lone, fixture.didSuffix)).toEqual(['hub', 'lone']);
    const loneLate = ledgerWithCreate();
    loneLate.anchor([fixture.update({ anchorFrom: START_TIME, patches: tag('lone') })], { time: START_TIME + 1701 });
    expect(serviceIds(loneLate, fixture.didSuffix)).toEqual(['hub']);
  });

  it('a recover outside its window rotates both commitments with an empty document; a deactivate is refused', () => {
    const ledger = ledgerWithCreate();
    ledger.anchor([fixture.deactivate(windowOf)], { time: START_TIME + 300 });
    expect(ledger.resolve(fixture.didSuffix).deactivated).toBe(false);
    ledger.anchor([fixture.recover({ ...windowOf, patches: tag('recovered') })], { time: START_TIME + 300 });
    const model = ledger.resolve(fixture.didSuffix);
    expect(model.appliedOperations.map((operation) => operation.type)).toEqual(['create', 'recover']);
    expect(model.document.services).toEqual([]);
    expect(model.updateCommitment).toBe(fixture.recover().delta.updateCommitment);
  });
});

describe('resolveOperations: versions', () => {
  const fixture = requestFixture();
  const ledger = new TestLedger();
  const anchors: string[] = [];
  const times: number[] = [];
  const record = (request: Parameters<TestLedger['anchor']>[0][number]) => {
    ledger.now += 100;
    times.push(ledger.now);
    anchors.push(ledger.anchor([request]));
  };
  record(fixture.created.request);
  record(fixture.update({ patches: tag('v2') }));
  record(
    updateRequest({
      didSuffix: fixture.didSuffix,
      updateKey: fixture.keys.nextUpdate,
      nextUpdateKey: KeyPair.generate('Ed25519'),
      patches: tag('v3'),
    }),
  );
  const afterRecover = KeyPair.generate('Ed25519');
  record(fixture.recover({ nextUpdateKey: afterRecover, patches: tag('v4') }));
  ledger.now += 100;
  ledger.submit(
    updateRequest({
      didSuffix: fixture.didSuffix,
      updateKey: afterRecover,
      nextUpdateKey: KeyPair.generate('Ed25519'),
      patches: tag('pending'),
    }),
  );
  const expected = [['hub'], ['hub', 'v2'], ['hub', 'v2', 'v3'], ['v4']];
  const iso = (time: number) => new Date(time * 1000).toISOString().replace('.000Z', 'Z');

  it('resolves the current state including unpublished operations', () => {
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['v4', 'pending']);
    const model = ledger.resolve(fixture.didSuffix);
    expect(model.versionId).toBeUndefined();
    expect(model.canonicalReference).toBe(anchors[3]);
    expect(model.appliedOperations.at(-1)?.published).toBe(false);
  });

  it('versionId selects each earlier state (published history only)', () => {
    anchors.forEach((anchor, index) => {
      const model = ledger.resolve(fixture.didSuffix, { versionId: anchor });
      expect(model.document.services.map((entry) => entry.id)).toEqual(expected[index]);
      expect(model.versionId).toBe(anchor);
    });
    expect(ledger.resolve(fixture.didSuffix, { versionId: anchors[1] }).canonicalReference).toBe(anchors[0]);
  });

  it('versionTime selects the state at each time', () => {
    times.forEach((time, index) => {
      expect(
        ledger.resolve(fixture.didSuffix, { versionTime: iso(time) }).document.services.map((entry) => entry.id),
      ).toEqual(expected[index]);
      expect(
        ledger.resolve(fixture.didSuffix, { versionTime: iso(time + 99) }).document.services.map((entry) => entry.id),
      ).toEqual(expected[index]);
    });
    expect(
      ledger
        .resolve(fixture.didSuffix, { versionTime: '2099-01-01T00:00:00+02:00' })
        .document.services.map((entry) => entry.id),
    ).toEqual(['v4']);
  });

  it('reports bad versions as bad requests with the reason', () => {
    expectBadRequest(
      () => ledger.resolve(fixture.didSuffix, { versionId: 'uEiNotAnAnchor' }),
      "'uEiNotAnAnchor' is not a valid versionId",
    );
    expectBadRequest(
      () => ledger.resolve(fixture.didSuffix, { versionTime: 'yesterday' }),
      "failed to parse version time 'yesterday'",
    );
    expectBadRequest(
      () => ledger.resolve(fixture.didSuffix, { versionTime: '2023-02-30T00:00:00Z' }),
      'failed to parse version time',
    );
    const before = iso(times[0]! - 1);
    expectBadRequest(
      () => ledger.resolve(fixture.didSuffix, { versionTime: before }),
      `no operations found for version time ${before}`,
    );
    expectBadRequest(
      () => ledger.resolve(fixture.didSuffix, { versionId: anchors[0], versionTime: iso(times[0]!) }),
      'versionId and versionTime cannot be used together',
    );
  });
});

describe('resolveOperations: unpublished operations', () => {
  it('an unpublished create resolves unpublished; an unpublished recover hides the canonical reference until anchored', () => {
    const fixture = requestFixture();
    const ledger = new TestLedger();
    ledger.submit(fixture.created.request);
    const pending = ledger.resolve(fixture.didSuffix);
    expect(pending.published).toBe(false);
    expect(pending.canonicalReference).toBeUndefined();
    expect(pending.createdTime).toBeUndefined();
    ledger.anchor([fixture.created.request]);
    ledger.submit(fixture.recover({ patches: tag('recovering') }));
    const recovering = ledger.resolve(fixture.didSuffix);
    expect(recovering.published).toBe(true);
    expect(recovering.canonicalReference).toBeUndefined();
    expect(recovering.document.services.map((entry) => entry.id)).toEqual(['recovering']);
  });

  it('unpublished operations follow the published ones and are ordered by receive time', () => {
    const fixture = requestFixture();
    const ledger = new TestLedger();
    ledger.anchor([fixture.created.request]);
    const second = updateRequest({
      didSuffix: fixture.didSuffix,
      updateKey: fixture.keys.nextUpdate,
      nextUpdateKey: KeyPair.generate('Ed25519'),
      patches: tag('second'),
    });
    ledger.unpublished.push({
      operation: parseOperation(JSON.stringify(second), { now: ledger.now }),
      receivedTime: ledger.now + 20,
    });
    ledger.unpublished.push({
      operation: parseOperation(JSON.stringify(fixture.update({ patches: tag('first') })), { now: ledger.now }),
      receivedTime: ledger.now + 10,
    });
    expect(serviceIds(ledger, fixture.didSuffix)).toEqual(['hub', 'first', 'second']);
  });
});

describe('resolveOperations: scale', () => {
  it('resolves a long update chain (linear in the operations)', () => {
    const keys = Array.from({ length: 201 }, () => KeyPair.generate('Ed25519'));
    const created = createRequest({
      recoveryKey: KeyPair.generate('Ed25519'),
      updateKey: keys[0]!,
      anchorOrigin: ORIGIN,
      patches: [addPublicKeys(documentKey('k', keys[0]!))],
    });
    const ledger = new TestLedger();
    ledger.anchor([created.request]);
    for (let index = 0; index < 200; index++) {
      ledger.anchor([
        updateRequest({
          didSuffix: created.didSuffix,
          updateKey: keys[index]!,
          nextUpdateKey: keys[index + 1]!,
          patches: [addAlsoKnownAs(`https://alias-${index}.example.com`)],
        }),
      ]);
    }
    const started = performance.now();
    const model = ledger.resolve(created.didSuffix);
    const elapsed = performance.now() - started;
    expect(model.document.alsoKnownAs).toHaveLength(200);
    expect(model.appliedOperations).toHaveLength(201);
    // Signatures are verified once per parsed operation; a second resolution is cheap.
    const again = performance.now();
    ledger.resolve(created.didSuffix);
    expect(performance.now() - again).toBeLessThan(Math.max(elapsed, 50));
  });
});
