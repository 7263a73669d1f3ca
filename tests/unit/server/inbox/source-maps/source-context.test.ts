import { describe, expect, it } from 'vitest';
import { MAX_CONTEXT_LINE, SourceLines } from '#app/server/inbox/source-maps/source-context';

const SOURCE = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'].join('\n');

describe('SourceLines#context', () => {
  it.each([
    ['the middle', 4, { pre: ['two', 'three'], line: 'four', post: ['five', 'six'] }],
    ['the first line', 1, { pre: [], line: 'one', post: ['two', 'three'] }],
    ['the second line', 2, { pre: ['one'], line: 'two', post: ['three', 'four'] }],
    ['the last line', 7, { pre: ['five', 'six'], line: 'seven', post: [] }],
    ['past the end', 8, undefined],
    ['far past the end', 1e9, undefined],
  ])('%s', (_, line, expected) => {
    expect(new SourceLines(SOURCE).context(line)).toEqual(expected);
  });

  it('drops Windows line ends and cuts a minified line', () => {
    const context = new SourceLines(`a\r\n${'x'.repeat(100_000)}\r\nc`).context(2);
    expect(context?.pre).toEqual(['a']);
    expect(context?.line).toHaveLength(MAX_CONTEXT_LINE + 1);
    expect(context?.post).toEqual(['c']);
  });
});
