import { Writable } from 'node:stream';
import { afterEach } from 'vitest';
import { configureLogging } from '../log/index.js';
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from './index.js';
import type { RequestListener } from 'node:http';

const running: RunningHttpServer[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

/** Serves an app on a loopback port for the current test; closed after it. */
export async function serve(app: RequestListener, options: HttpServerOptions = {}): Promise<RunningHttpServer> {
  const server = await startHttpServer(app, { host: '127.0.0.1', port: 0, shutdownTimeoutMs: 2_000, ...options });
  running.push(server);
  return server;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function call(url: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(url, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** Captures log lines (JSON) written while a test runs. */
export function captureLogs(levels = 'info'): { entries(): Array<Record<string, unknown>> } {
  const lines: string[] = [];
  configureLogging({
    format: 'json',
    levels,
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(
          ...chunk
            .toString('utf8')
            .split('\n')
            .filter((l) => l !== ''),
        );
        done();
      },
    }),
  });
  return { entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
