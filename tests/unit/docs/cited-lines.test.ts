/**
 * The docs cite lines of our code ("index.tsx:41 in onClick", the example throw a reader looks
 * for in /errors): each citation must still name a line that throws. An edit above the throw
 * moved it once and the docs went on citing the old line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
// Decision records are history: they cite lines as they were when written.
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const SOURCES = readdirSync(join(ROOT, 'app'), { recursive: true, encoding: 'utf8' })
  .filter((name) => /\.tsx?$/.test(name))
  .map((name) => relative(ROOT, join(ROOT, 'app', name)));

/** `app/routes/…/ssr-error.tsx`, `ssr-error.tsx` or a whole path: the files it can mean. */
function filesCitedBy(cited: string): string[] {
  const [head = '', tail] = cited.includes('…') ? cited.split('…') : ['', `/${cited}`];
  return SOURCES.filter(
    (path) => (path === cited || path.endsWith(tail ?? '')) && path.startsWith(head),
  );
}

const citations = DOCS.flatMap((doc) =>
  [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/([\w./…$-]+\.tsx?):(\d+)/gu)].map(
    ([, file = '', line = '']) => ({ doc, file, line: Number(line) }),
  ),
);

describe('lines the docs cite', () => {
  it('finds some (the README cites the example throw)', () => {
    expect(citations.some(({ doc }) => doc === 'README.md')).toBe(true);
  });

  it.each(citations)('$doc: $file:$line names a throw', ({ file, line }) => {
    const files = filesCitedBy(file);
    expect(files, `${file} must name one file of app/`).toHaveLength(1);
    const source = readFileSync(join(ROOT, files[0] ?? ''), 'utf8').split('\n');
    expect(source[line - 1]).toMatch(/\bthrow\b/);
  });
});
