import { describe, expect, it } from 'vitest';
import { parseDockerfile, planProcesses, startOrder, type ComposeProject } from './compose.test-helpers.js';

const DOCKERFILE = `
FROM node:22 AS runtime
ENV NODE_ENV=production
FROM runtime AS api
ENV API_HOST_URL=0.0.0.0:8080 API_DATA_DIR=/data
ENTRYPOINT ["node", "services/api/dist/main.js"]
FROM runtime AS job
ENTRYPOINT ["node", "tools/job.js", "--once"]
`;

const inputs = {
  ports: { api: 4001, job: 4002 },
  volumeDir: (source: string) => `/tmp/x/${source}`,
  mongoUrl: 'mongodb://127.0.0.1:27999/anchor',
  amqpHost: '127.0.0.1:5672',
  infrastructure: ['mongo', 'rabbitmq'],
};

function project(apiEnv: Record<string, string>, jobEnv: Record<string, string> = {}): ComposeProject {
  return {
    services: {
      mongo: { image: 'mongo:7' },
      rabbitmq: { image: 'rabbitmq:3' },
      job: { build: { context: '.', target: 'job' }, environment: jobEnv, depends_on: { api: {} } },
      api: { build: { context: '.', target: 'api' }, environment: apiEnv, volumes: ['api-data:/data'] },
    },
  };
}

describe('compose plan', () => {
  it('reads stages with inherited environment and exec-form entry points', () => {
    const targets = parseDockerfile(DOCKERFILE);
    expect(targets.get('api')).toEqual({
      name: 'api',
      env: { NODE_ENV: 'production', API_HOST_URL: '0.0.0.0:8080', API_DATA_DIR: '/data' },
      entrypoint: ['node', 'services/api/dist/main.js'],
    });
    expect(targets.get('job')?.entrypoint).toEqual(['node', 'tools/job.js', '--once']);
  });

  it('maps listeners, volumes, MongoDB, RabbitMQ and service URLs to local stand-ins', () => {
    const plans = planProcesses(
      project(
        {
          DATABASE_URL: 'mongodb://mongo:27017/?replicaSet=rs0&w=majority',
          MQ_URL: 'amqp://guest:guest@rabbitmq:5672/node1',
        },
        { TARGETS: 'http://api:8080,http://api:8080/x' },
      ),
      parseDockerfile(DOCKERFILE),
      inputs,
    );
    const api = plans.find((plan) => plan.service === 'api')!;
    expect(api.env).toMatchObject({
      API_HOST_URL: '127.0.0.1:4001',
      API_DATA_DIR: '/tmp/x/api-data',
      DATABASE_URL: 'mongodb://127.0.0.1:27999/anchor?w=majority',
      MQ_URL: 'amqp://guest:guest@127.0.0.1:5672/node1',
    });
    expect(api.url).toBe('http://127.0.0.1:4001');
    expect(api.volumes).toEqual(['/tmp/x/api-data']);
    const job = plans.find((plan) => plan.service === 'job')!;
    expect(job.env['TARGETS']).toBe('http://127.0.0.1:4001,http://127.0.0.1:4001/x');
    expect(job.args).toEqual(['--once']);
    expect(startOrder(plans).map((plan) => plan.service)).toEqual(['api', 'job']);
  });

  it('refuses a URL naming a service on a port it does not listen on', () => {
    expect(() =>
      planProcesses(project({}, { TARGETS: 'http://api:9999' }), parseDockerfile(DOCKERFILE), inputs),
    ).toThrow(/api:9999, which no service listens on/);
  });

  it('refuses a target the Dockerfile does not have', () => {
    const broken = project({});
    broken.services['api']!.build!.target = 'missing';
    expect(() => planProcesses(broken, parseDockerfile(DOCKERFILE), inputs)).toThrow(/no target missing/);
  });
});
