import { makeTempDir } from '@anchor/testing/process';
import { describeRouteTable } from '@anchor/testing/route-table';
import { KMS_API_INFO } from './routes.js';
import { createServer } from './server.js';

/** A bare kms: defaults only, in memory. `npm run docs` rewrites openapi.json and the README's tables from it. */
describeRouteTable({
  service: 'kms',
  readme: new URL('../README.md', import.meta.url),
  openapi: new URL('../openapi.json', import.meta.url),
  mustList: [
    'POST /v1/keystores',
    'PUT /v1/keystores/:keystoreId/keys',
    'POST /v1/keystores/:keystoreId/keys/:keyId/sign',
  ],
  async start() {
    const dir = await makeTempDir('kms-routes-');
    const server = createServer({
      dataDir: dir.path,
      storage: { type: 'mem' },
      devMode: true,
      bbsWorkers: 0,
      signWorkers: 0,
    });
    await server.start();
    return {
      url: server.url,
      http: server.http,
      apiInfo: KMS_API_INFO,
      stop: async () => {
        await server.stop();
        await dir.remove();
      },
    };
  },
});
