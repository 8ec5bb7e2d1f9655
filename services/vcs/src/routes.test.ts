import { makeTempDir } from '@anchor/testing/process';
import { describeRouteTable } from '@anchor/testing/route-table';
import { VCS_API_INFO } from './routes.js';
import { createServer } from './server.js';

/** A bare combined-mode vcs, in memory. `npm run docs` rewrites openapi.json and the README's tables from it. */
describeRouteTable({
  service: 'vcs',
  readme: new URL('../README.md', import.meta.url),
  openapi: new URL('../openapi.json', import.meta.url),
  mustList: [
    'POST /profile',
    'POST /:profile/credentials/issueCredential',
    'POST /verifier/credentials',
    'POST /:profile/prove/presentations',
    'POST /credentials/verify',
  ],
  async start() {
    const dir = await makeTempDir('vcs-routes-');
    const server = createServer({ dataDir: dir.path, storage: { type: 'mem' }, keyStorage: { type: 'mem' } });
    await server.start();
    return {
      url: server.url,
      http: server.http,
      apiInfo: VCS_API_INFO,
      stop: async () => {
        await server.stop();
        await dir.remove();
      },
    };
  },
});
