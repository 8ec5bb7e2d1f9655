import { mongoServerForTests, mongoThroughProxy, type MongoTestServer } from '@anchor/testing/ferretdb';
import { makeTempDir, type TempDir } from '@anchor/testing/process';
import { TcpProxy } from '@anchor/testing/tcp-proxy';
import { startNodeProcess, type NodeProcess } from './node-process.js';

export interface HealthAnswer {
  status: number;
  body: Record<string, string>;
}

/** The node's /healthcheck as a load balancer reads it: the status code and the JSON fields. */
export async function health(node: NodeProcess): Promise<HealthAnswer> {
  const response = await fetch(`${node.url}/healthcheck`, { headers: { accept: 'application/json' } });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

export interface ProxiedDatabaseNode {
  node: NodeProcess;
  /** Every byte between the node and its database goes through it: the test cuts, blackholes and restores it. */
  proxy: TcpProxy;
  /** Closes the proxy, the node's directory and the database server (the node itself: `stopAllProcesses`). */
  close(): Promise<void>;
}

/**
 * A built node on MongoDB (MONGODB_URL when set, else FerretDB) reached through a TCP proxy, in a database
 * prefix of its own (`<name><pid>_`), with any further arguments.
 */
export async function startNodeOnProxiedDatabase(name: string, args: string[] = []): Promise<ProxiedDatabaseNode> {
  const server: MongoTestServer = await mongoServerForTests();
  let proxy: TcpProxy | undefined;
  let dir: TempDir | undefined;
  const close = async () => {
    await proxy?.close();
    await dir?.remove();
    await server.stop();
  };
  try {
    const mongo = mongoThroughProxy(server.url);
    proxy = await TcpProxy.start(mongo.target);
    dir = await makeTempDir(`node-${name}-`);
    const node = await startNodeProcess(dir, {
      args: [
        '--database-type',
        'mongodb',
        '--database-url',
        mongo.urlVia(proxy.port),
        '--database-prefix',
        `${name}${process.pid}_`,
        ...args,
      ],
    });
    return { node, proxy, close };
  } catch (error) {
    await close();
    throw error;
  }
}
