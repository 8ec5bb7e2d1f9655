import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keepLayoutStable, planFederation } from './federation-layout.js';

describe('the federation layout', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('federation-layout-');
  });
  afterEach(() => dir.remove());

  it('places the log and numbered nodes on loopback, each with its own data directory', () => {
    const layout = planFederation({ dataDir: dir.path, nodes: 3, logPort: 8070, firstNodePort: 8081 });
    expect(layout.log).toEqual({
      name: 'vct-log',
      port: 8070,
      url: 'http://127.0.0.1:8070',
      dataDir: join(dir.path, 'vct-log'),
      logUrl: 'http://127.0.0.1:8070/main',
    });
    expect(layout.nodes.map((node) => [node.name, node.url, node.dataDir])).toEqual([
      ['node1', 'http://127.0.0.1:8081', join(dir.path, 'node1')],
      ['node2', 'http://127.0.0.1:8082', join(dir.path, 'node2')],
      ['node3', 'http://127.0.0.1:8083', join(dir.path, 'node3')],
    ]);
    expect(() => planFederation({ dataDir: dir.path, nodes: 2, logPort: 8082, firstNodePort: 8081 })).toThrow(
      /must differ/,
    );
    const withKms = planFederation({ dataDir: dir.path, nodes: 1, logPort: 8070, firstNodePort: 8081, kmsPort: 8075 });
    expect(withKms.kms).toEqual({
      name: 'kms',
      port: 8075,
      url: 'http://127.0.0.1:8075',
      dataDir: join(dir.path, 'kms'),
    });
    expect(() =>
      planFederation({ dataDir: dir.path, nodes: 1, logPort: 8070, firstNodePort: 8081, kmsPort: 8081 }),
    ).toThrow(/the kms, vcs, log and node ports must differ/);
  });

  it('accepts more nodes on the same ports, names the ones left out, and refuses moved ones', async () => {
    const plan = (nodes: number, firstNodePort = 8081) =>
      planFederation({ dataDir: dir.path, nodes, logPort: 8070, firstNodePort });
    expect(await keepLayoutStable(plan(2))).toEqual([]);
    expect(await keepLayoutStable(plan(3))).toEqual([]);
    expect(await keepLayoutStable(plan(2))).toEqual(['node3']);
    expect(JSON.parse(await readFile(join(dir.path, 'federation.json'), 'utf8'))).toEqual({
      log: 'http://127.0.0.1:8070',
      nodes: { node1: 'http://127.0.0.1:8081', node2: 'http://127.0.0.1:8082', node3: 'http://127.0.0.1:8083' },
      lastStarted: ['node1', 'node2'],
      signing: 'local',
    });
    await expect(keepLayoutStable(plan(2, 9081))).rejects.toThrow(
      /started on other ports \(node1 http:\/\/127.0.0.1:8081 -> http:\/\/127.0.0.1:9081; node2 /,
    );
  });

  it('refuses to switch a federation between local keys and the kms', async () => {
    const plan = (kmsPort?: number) =>
      planFederation({
        dataDir: dir.path,
        nodes: 2,
        logPort: 8070,
        firstNodePort: 8081,
        ...(kmsPort ? { kmsPort } : {}),
      });
    expect(await keepLayoutStable(plan(8075))).toEqual([]);
    expect(await keepLayoutStable(plan(8076))).toEqual([]);
    await expect(keepLayoutStable(plan())).rejects.toThrow(/sign with keys in the kms: start it with the kms/);
  });
});
