import { describe, expect, it } from 'vitest';
import { firstEventTags, type TagCount } from '#app/server/inbox/store/inbox-database.server';

type Tags = Array<[string, string]>;
const values = (key: string, count: number, prefix = 'v'): Tags =>
  Array.from({ length: count }, (_, i) => [key, `${prefix}${i}`]);
const keys = (count: number): Tags => Array.from({ length: count }, (_, i) => [`k${i}`, 'v']);
const counted = (tags: Tags): TagCount[] => tags.map(([key, value]) => ({ key, value, count: 1 }));

describe("firstEventTags: an issue's tag rows after the event that opens it", () => {
  it.each<[string, Tags, TagCount[], string[]]>([
    ['no tags', [], [], []],
    [
      'a few, each counted once',
      [
        ['browser', 'Chrome 156'],
        ['os', 'Linux'],
      ],
      counted([
        ['browser', 'Chrome 156'],
        ['os', 'Linux'],
      ]),
      [],
    ],
    [
      'a pair twice: one row counted twice',
      [
        ['os', 'Linux'],
        ['os', 'Linux'],
      ],
      [{ key: 'os', value: 'Linux', count: 2 }],
      [],
    ],
    ['100 values of a key: all kept', values('k', 100), counted(values('k', 100)), []],
    [
      '102 values of a key: 100 kept, the rest as "(other)"',
      values('k', 102),
      [...counted(values('k', 100)), { key: 'k', value: '(other)', count: 2 }],
      [],
    ],
    [
      'a kept value again past the key’s cap: counted under its own value',
      [...values('k', 101), ['k', 'v7']],
      [
        ...counted(values('k', 100)).map((row) =>
          row.value === 'v7' ? { ...row, count: 2 } : row,
        ),
        { key: 'k', value: '(other)', count: 1 },
      ],
      [],
    ],
    ['32 keys: the first 30 kept, the others not', keys(32), counted(keys(30)), []],
    [
      'a new value of a kept key once the issue has 30 keys: kept',
      [...keys(30), ['k3', 'w']],
      [...counted(keys(4)), { key: 'k3', value: 'w', count: 1 }, ...counted(keys(30)).slice(4)],
      [],
    ],
    [
      'a value sent as "(other)" itself: kept for a kept key at its cap, not for a key past the issue’s',
      [...values('k0', 100), ...keys(31).slice(1), ['k0', '(other)'], ['k30', '(other)']],
      [
        ...counted(values('k0', 100)),
        { key: 'k0', value: '(other)', count: 1 },
        ...counted(keys(30).slice(1)),
      ],
      [],
    ],
    [
      'page URLs for search: each once, only those counted under their own value',
      [['url', '/a'], ['url', '/a'], ...values('url', 99, '/p'), ['url', '/late']],
      [
        { key: 'url', value: '/a', count: 2 },
        ...counted(values('url', 99, '/p')),
        { key: 'url', value: '(other)', count: 1 },
      ],
      ['/a', ...values('url', 99, '/p').map(([, url]) => url)],
    ],
  ])('%s', (_name, tags, counts, urls) => {
    expect(firstEventTags(tags)).toEqual({ counts, urls });
  });
});
