import { AMQP_URL, amqpUnavailable } from '@anchor/testing/amqp-broker';
import { builtServiceMain, makeTempDir, runProcess, type TempDir } from '@anchor/testing/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A broker misconfiguration is one plain line at start-up: a URL malformed on its face exits 2 at once
 * naming the option (the rule for bad config), a refused vhost or login is said in plain words at once;
 * only an unreachable broker is retried.
 */
describe('the node on a misconfigured broker', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('node-mq-config-');
  });
  afterAll(async () => {
    await dir.remove();
  });

  it('exits 2 at once on a malformed --mq-url, naming the option and not the password', async () => {
    const started = Date.now();
    const result = await runProcess(builtServiceMain('node'), {
      args: ['--host-url', '127.0.0.1:0', '--data-dir', dir.path, '--mq-url', 'amqp://guest:s3cret@127.0.0.1:notaport'],
    });
    expect(result.code).toBe(2);
    expect(result.output).toMatch(/--mq-url.*is not a valid URL/);
    expect(result.output).not.toContain('s3cret');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('checks every address of a cluster list and the queue type, exiting 2 naming the bad one', async () => {
    const list = await runProcess(builtServiceMain('node'), {
      args: [
        '--host-url',
        '127.0.0.1:0',
        '--data-dir',
        dir.path,
        '--mq-url',
        'amqp://guest:s3cret@127.0.0.1:5672,amqp://guest:s3cret@127.0.0.1:notaport',
      ],
    });
    expect(list.code).toBe(2);
    expect(list.output).toMatch(
      /--mq-url.*address 2 of 2 \(amqp:\/\/guest:\*\*\*@127\.0\.0\.1:notaport\) is not a valid URL/,
    );
    expect(list.output).not.toContain('s3cret');
    const type = await runProcess(builtServiceMain('node'), {
      args: ['--host-url', '127.0.0.1:0', '--data-dir', dir.path, '--mq-queue-type', 'mirrored'],
    });
    expect(type.code).toBe(2);
    expect(type.output).toMatch(/--mq-queue-type/);
    expect(type.output).toMatch(/classic/);
  });

  it('says an unknown vhost is refused, at once', async () => {
    const unavailable = await amqpUnavailable();
    if (unavailable) {
      console.warn(`vhost refusal check skipped: RabbitMQ unreachable (${unavailable})`);
      return;
    }
    const url = new URL(AMQP_URL);
    url.pathname = '/no-such-vhost';
    const started = Date.now();
    const result = await runProcess(builtServiceMain('node'), {
      args: ['--host-url', '127.0.0.1:0', '--data-dir', dir.path, '--mq-url', url.toString()],
    });
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(
      /refused the virtual host "no-such-vhost": it does not exist, or the user may not use it/,
    );
    expect(result.output).not.toMatch(/ConnectionOpenOk/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
