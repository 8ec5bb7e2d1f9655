import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import {
  configureLogging,
  currentLogSpec,
  formatLogSpec,
  getLogger,
  levelOf,
  parseLogLevel,
  parseLogSpec,
  setLogLevels,
} from './index.js';

class Lines extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== ''),
    );
    done();
  }
}

function rejection(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('level names', () => {
  it.each([
    ['error', 'error'],
    ['ERROR', 'error'],
    ['CRITICAL', 'error'],
    ['fatal', 'error'],
    ['WARN', 'warning'],
    ['Warning', 'warning'],
    ['INFO', 'info'],
    [' debug ', 'debug'],
    ['TRACE', 'debug'],
  ])('reads %j as %s', (text, level) => {
    expect(parseLogLevel(text)).toBe(level);
  });
  it('rejects unknown names with the valid ones', () => {
    const error = rejection(() => parseLogLevel('loud'));
    expect(error.code).toBe('bad_request');
    expect(error.message).toBe('unknown log level "loud"; use one of error, warning, info, debug');
  });
});

describe('level spec', () => {
  it('parses modules and the default, and formats back in canonical names', () => {
    const spec = parseLogSpec('anchor-writer=DEBUG:activitypub_client=warn:INFO');
    expect(spec.defaultLevel).toBe('info');
    expect([...spec.modules]).toEqual([
      ['anchor-writer', 'debug'],
      ['activitypub_client', 'warning'],
    ]);
    expect(formatLogSpec(spec)).toBe('anchor-writer=debug:activitypub_client=warning:info');
    expect(formatLogSpec(parseLogSpec('CRITICAL'))).toBe('error');
    expect(formatLogSpec(parseLogSpec(' a = debug : info '))).toBe('a=debug:info');
  });

  it.each([
    ['', /empty log level spec/],
    ['   ', /empty log level spec/],
    ['a=debug', /must end with the default level/],
    ['a=debug:', /ends with an empty default level/],
    ['a=debug::info', /empty element 2/],
    ['debug:info', /element 1 "debug" is not module=level/],
    ['a=loud:info', /unknown log level "loud"/],
    ['a=debug:a=info:info', /names module "a" twice/],
    ['=debug:info', /invalid module name ""/],
    ['a b=debug:info', /invalid module name "a b"/],
    ['a=debug:verbose', /unknown log level "verbose"/],
  ])('rejects %j', (text, reason) => {
    const error = rejection(() => parseLogSpec(text));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(reason);
  });
});

describe('loggers', () => {
  let out: Lines;
  beforeEach(() => {
    out = new Lines();
    configureLogging({ format: 'json', destination: out, levels: 'info' });
  });
  afterEach(() => configureLogging({ format: 'json', destination: new Lines(), levels: 'info' }));

  it('writes JSON lines with time, level, module, message and fields', () => {
    getLogger('anchor-writer').info('batch cut', { size: 3 });
    expect(out.lines).toHaveLength(1);
    const entry = JSON.parse(out.lines[0] as string);
    expect(Object.keys(entry)).toEqual(['time', 'level', 'module', 'message', 'size']);
    expect(entry).toMatchObject({ level: 'info', module: 'anchor-writer', message: 'batch cut', size: 3 });
    expect(Number.isNaN(Date.parse(entry.time))).toBe(false);
  });

  it('follows the spec, and a runtime change takes effect on existing loggers', () => {
    const writer = getLogger('anchor-writer');
    const observer = getLogger('observer');
    writer.debug('hidden');
    observer.info('shown');
    setLogLevels('anchor-writer=debug:error');
    writer.debug('now shown');
    observer.info('now hidden');
    observer.warn('hidden too');
    observer.error('errors still shown');
    expect(out.lines.map((line) => JSON.parse(line).message)).toEqual(['shown', 'now shown', 'errors still shown']);
    expect(currentLogSpec()).toBe('anchor-writer=debug:error');
    expect(levelOf('anchor-writer')).toBe('debug');
    expect(levelOf('anything-else')).toBe('error');
    expect(JSON.parse(out.lines[1] as string).level).toBe('debug');
  });

  it('keeps the current spec when a bad one is applied', () => {
    setLogLevels('a=warning:debug');
    expect(() => setLogLevels('a=debug:nonsense')).toThrow(AppError);
    expect(currentLogSpec()).toBe('a=warning:debug');
  });

  it('does not build lazy fields for a disabled level', () => {
    let built = 0;
    const log = getLogger('lazy');
    log.debug('skipped', () => {
      built++;
      return { expensive: true };
    });
    expect(built).toBe(0);
    expect(log.isEnabled('debug')).toBe(false);
    log.info('kept', () => {
      built++;
      return { expensive: true };
    });
    expect(built).toBe(1);
    expect(JSON.parse(out.lines[0] as string).expensive).toBe(true);
  });

  it('serialises errors with their stack and never lets fields overwrite the entry', () => {
    getLogger('x').error('failed', { err: new AppError('conflict', 'taken'), message: 'sneaky', level: 'debug' });
    const entry = JSON.parse(out.lines[0] as string);
    expect(entry.message).toBe('failed');
    expect(entry.level).toBe('error');
    expect(entry['field.message']).toBe('sneaky');
    expect(entry['field.level']).toBe('debug');
    expect(entry.err).toMatchObject({ name: 'AppError', message: 'taken' });
    expect(entry.err.stack).toContain('log.test.ts');
  });

  it('writes readable text in development format', () => {
    configureLogging({ format: 'text', destination: out });
    getLogger('http').warn('slow request', { path: '/x y', ms: 1500, err: new Error('boom') });
    expect(out.lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z WARNING \[http\] slow request path="\/x y" ms=1500 err="boom"$/,
    );
    expect(out.lines[1]).toBe('Error: boom');
  });
});
