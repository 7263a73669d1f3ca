import { describe, expect, it, vi } from 'vitest';
import { parsePlainSearch, stringifyPlainSearch } from '#app/router';

// The search params' rules only: not the route tree, whose routes reach the server's modules.
vi.mock('#app/routeTree.gen', () => ({ routeTree: {} }));

describe('plain search params', () => {
  it('keeps every value as the text a form sent, JSON-looking or not', () => {
    expect(
      parsePlainSearch(
        '?release=1.10&event=11111111111111111111111111111111&q=%22quoted%22&flag=true&empty=',
      ),
    ).toEqual({
      release: '1.10',
      event: '11111111111111111111111111111111',
      q: '"quoted"',
      flag: 'true',
      empty: '',
    });
  });

  it('gives a repeated key its values in order', () => {
    expect(parsePlainSearch('a=1&b=x&a=2&a=3')).toEqual({ a: ['1', '2', '3'], b: 'x' });
  });

  it('writes what it reads back the same, without quotes, leaving out undefined', () => {
    const search = { release: '1.10', page: 2, q: 'a b&c', gone: undefined, list: ['x', 'y'] };
    const text = stringifyPlainSearch(search);
    expect(text).toBe('?release=1.10&page=2&q=a+b%26c&list=x&list=y');
    expect(parsePlainSearch(text)).toEqual({
      release: '1.10',
      page: '2',
      q: 'a b&c',
      list: ['x', 'y'],
    });
    expect(stringifyPlainSearch({})).toBe('');
  });
});
