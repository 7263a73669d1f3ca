/**
 * Comments, docs and tests name only files that exist, and no declaration carries two doc
 * comments. Merges and moves left both behind: comments naming files renamed away, and a header
 * comment stacked on the one it replaced. Decision records are history and name files as they
 * were, so they are exempt.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.output', '.vinxi', 'test-results', 'dist']);

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : filesUnder(path);
    return [path];
  });
}

const REPO_FILES = filesUnder('');
const EXISTING_NAMES = new Set(REPO_FILES.map((path) => basename(path)));

/**
 * Other packages' files a comment must name because the path is the point (where upstream's
 * code lives), each checked to exist in its package.
 */
const OTHER_PACKAGES_FILES = new Map<string, string>([]);

const SCANNED_CODE = /\.(?:tsx?|mjs|cjs|js)$/;
const FILE_NAME =
  /(?<![\w.$@/-])(?:[\w.$@-]+\/)*([\w$@-][\w.$@-]*\.(?:tsx?|mjs|cjs|jsx?|md|json|css|sql|sh|ya?ml|html))(?![\w-])/g;
// Product names that look like file names.
const NOT_FILES = new Set(['Next.js', 'Node.js']);
const COMMENT = /\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*/g;

/** The text a reader takes for prose: the whole of a doc, the comments of code. */
function proseOf(path: string): string | undefined {
  if (path.startsWith('docs/decisions/')) return undefined;
  const text = readFileSync(join(ROOT, path), 'utf8');
  if (path.endsWith('.md')) return text;
  if (SCANNED_CODE.test(path))
    return [...text.matchAll(COMMENT)].map(([comment]) => comment).join('\n');
  return undefined;
}

const mentions = REPO_FILES.flatMap((path) => {
  const prose = proseOf(path);
  if (prose === undefined) return [];
  return [...prose.matchAll(FILE_NAME)]
    .map(([mention, name = '']) => ({ path, mention, name }))
    .filter(({ name }) => !NOT_FILES.has(name));
});

describe('files named in comments, docs and tests', () => {
  it('finds mentions to check (the README names docs)', () => {
    expect(mentions.some(({ path }) => path === 'README.md')).toBe(true);
  });

  it('names only files that exist', () => {
    const missing = mentions
      .filter(({ name }) => !EXISTING_NAMES.has(name) && !OTHER_PACKAGES_FILES.has(name))
      .map(({ path, mention }) => `${path}: ${mention}`);
    expect(missing).toEqual([]);
  });

  it.each([...OTHER_PACKAGES_FILES])('%s is a file of its package (%s)', (name, path) => {
    expect(basename(path)).toBe(name);
    expect(existsSync(join(ROOT, 'node_modules', path))).toBe(true);
  });
});

describe('doc comments', () => {
  const sources = REPO_FILES.filter((path) => path.startsWith('app/') && SCANNED_CODE.test(path));

  it('scans the app', () => {
    expect(sources.length).toBeGreaterThan(50);
  });

  it('never stacks two on one declaration', () => {
    const stacked = sources.flatMap((path) => {
      const source = readFileSync(join(ROOT, path), 'utf8');
      return [...source.matchAll(/\/\*\*[\s\S]*?\*\/\s*(?=\/\*\*)/g)].map(
        ({ index }) => `${path}:${source.slice(0, index).split('\n').length}`,
      );
    });
    expect(stacked).toEqual([]);
  });
});
