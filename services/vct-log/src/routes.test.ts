import { makeTempDir } from '@anchor/testing/process';
import { describeRouteTable } from '@anchor/testing/route-table';
import { VCT_LOG_API_INFO } from './routes.js';
import { createServer } from './server.js';

/** A bare log: defaults only, in memory. `npm run docs` rewrites openapi.json and the README's tables from it. */
describeRouteTable({
  service: 'vct-log',
  readme: new URL('../README.md', import.meta.url),
  openapi: new URL('../openapi.json', import.meta.url),
  mustList: ['POST /:alias/v1/add-vc', 'GET /.well-known/webfinger'],
  async start() {
    const dir = await makeTempDir('vct-routes-');
    const server = createServer({ dataDir: dir.path, storage: { type: 'mem' }, canonicalizeWorkers: 0 });
    await server.start();
    return {
      url: server.url,
      http: server.http,
      apiInfo: VCT_LOG_API_INFO,
      stop: async () => {
        await server.stop();
        await dir.remove();
      },
    };
  },
});
