import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/index.js';
import { checkQuery, queryValue, searchOf } from './query-rule.js';

function statusOf(run: () => unknown): number | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.status : -1;
  }
}

describe('the query rule', () => {
  it('passes distinct parameters and refuses a repeated one with a 400 naming it', () => {
    expect(statusOf(() => checkQuery(''))).toBeUndefined();
    expect(statusOf(() => checkQuery('a=1&b=2'))).toBeUndefined();
    expect(statusOf(() => checkQuery('a=1&a=2'))).toBe(400);
    expect(() => checkQuery('keyVersion=1&keyVersion=2')).toThrow("'keyVersion' is given more than once");
  });

  it('finds the query of a URL as sent', () => {
    expect(searchOf('/a')).toBe('');
    expect(searchOf('/a?b=1&c')).toBe('b=1&c');
  });
});

describe('queryValue', () => {
  it('reads a plain value, undefined when absent', () => {
    const query = new URLSearchParams('status=active&empty=&plus=a+b&pct=%3A');
    expect(queryValue({ query }, 'status')).toBe('active');
    expect(queryValue({ query }, 'empty')).toBe('');
    expect(queryValue({ query }, 'plus')).toBe('a b');
    expect(queryValue({ query }, 'pct')).toBe(':');
    expect(queryValue({ query }, 'none')).toBeUndefined();
  });

  it('refuses a parameter given twice, with a 400 naming it', () => {
    const query = new URLSearchParams('after=1&after=2');
    expect(statusOf(() => queryValue({ query }, 'after'))).toBe(400);
    expect(() => queryValue({ query }, 'after')).toThrow("query parameter 'after'");
  });
});
