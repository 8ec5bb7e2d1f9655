import { loadConfig } from '@anchor/common/config';
import { freePort, makeTempDir } from '@anchor/testing/process';
import { describeRouteTable } from '@anchor/testing/route-table';
import { nodeConfigSpec } from './config.js';
import { nodeApiInfo } from './routes.js';
import { createServer } from './server.js';

/** A bare node: defaults only, in memory. `npm run docs` rewrites openapi.json and the README's tables from it. */
describeRouteTable({
  service: 'node',
  readme: new URL('../README.md', import.meta.url),
  openapi: new URL('../openapi.json', import.meta.url),
  mustList: ['POST /sidetree/v1/operations', 'POST /services/node/inbox'],
  async start() {
    const port = await freePort();
    const dir = await makeTempDir('node-routes-');
    const config = loadConfig(nodeConfigSpec, {
      argv: [
        ...['--host-url', `127.0.0.1:${port}`, '--external-endpoint', `http://127.0.0.1:${port}`],
        ...['--data-dir', dir.path, '--database-type', 'mem', '--log-level', 'error'],
      ],
      env: {},
    });
    const server = await createServer(config);
    await server.start();
    return {
      url: server.url,
      http: server.context.http,
      apiInfo: nodeApiInfo(server.context),
      stop: async () => {
        await server.stop();
        await dir.remove();
      },
    };
  },
});
