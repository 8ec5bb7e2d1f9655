/**
 * A minimal service binary built the way every service's `main.ts` is (declared config, `runMain`, the
 * HTTP kit), started as a real child process by the process tests.
 */
import { defineConfig, loadConfig, opt, runMain } from '@anchor/common/config';
import { createHttpApp, startHttpServer } from '@anchor/common/http';
import { configureLogging, getLogger } from '@anchor/common/log';

const spec = defineConfig({
  program: 'fixture-service',
  description: 'A service used by the process tests.',
  options: {
    hostUrl: opt.hostPort({
      flag: 'host-url',
      short: 'u',
      env: 'FIXTURE_HOST_URL',
      required: true,
      help: 'listen address host:port',
    }),
    slow: opt.duration({ flag: 'slow', env: 'FIXTURE_SLOW', default: '300ms', help: 'how long GET /slow takes' }),
    greeting: opt.string({ flag: 'greeting', env: 'FIXTURE_GREETING', default: 'hello', help: 'what GET / answers' }),
    logLevel: opt.string({
      flag: 'log-level',
      env: ['FIXTURE_LOG_LEVEL', 'LOG_LEVEL'],
      default: 'info',
      help: 'log level spec',
    }),
  },
});

await runMain(
  async () => {
    const config = loadConfig(spec);
    configureLogging({ format: 'text', levels: config.logLevel });
    const log = getLogger('fixture');
    const http = createHttpApp();
    http.routes.get('/', (_req, res) => {
      res.type('text/plain').send(config.greeting);
    });
    http.routes.get('/slow', async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, config.slow));
      res.type('text/plain').send('slow done');
    });
    const server = await startHttpServer(http.app, { host: config.hostUrl.host, port: config.hostUrl.port });
    log.info('listening', { url: server.url });
    return {
      stop: async () => {
        log.info('stopping');
        await server.close();
        log.info('stopped');
      },
    };
  },
  { program: spec.program },
);
