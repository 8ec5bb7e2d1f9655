import { describe, expect, it } from 'vitest';
import { LineForwarder } from './line-forwarder.js';

describe('LineForwarder', () => {
  it('hands on whole lines however the chunks are cut, and the unterminated rest on flush', () => {
    const lines: string[] = [];
    const forwarder = new LineForwarder((line) => lines.push(line));
    forwarder.write('first li');
    forwarder.write('ne\r\nsecond line\nthi');
    expect(lines).toEqual(['first line', 'second line']);
    forwarder.write('rd');
    forwarder.flush();
    forwarder.flush();
    expect(lines).toEqual(['first line', 'second line', 'third']);
  });
});
