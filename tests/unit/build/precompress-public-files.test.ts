import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { precompressPublicFiles, shouldPrecompress } from '../../../build/precompress-public-files';

function tree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const code = (name: string) =>
  `export function ${name}() { return '${'x'.repeat(40)}'; }\n`.repeat(50);

describe('precompressPublicFiles', () => {
  it('writes a .br and a .gz that decompress to the file, beside text files for visitors only', () => {
    const publicDir = mkdtempSync(join(tmpdir(), 'public-'));
    tree(publicDir, {
      '_build/assets/app-1a2b.js': code('app'),
      '_build/assets/app-1a2b.css': `body { color: red; }\n`.repeat(40),
      '_build/.vite/manifest.json': JSON.stringify({ a: code('m') }),
      'assets/ssr-3c4d.css': `p { margin: 0; }\n`.repeat(40),
      'favicon.svg': `<svg xmlns="http://www.w3.org/2000/svg">${'<g/>'.repeat(50)}</svg>`,
      'logo.png': code('png'),
      // Too small to shrink: no variant at all.
      'tiny.txt': 'a',
    });

    const result = precompressPublicFiles(publicDir);

    expect(result.files.sort()).toEqual([
      '/_build/assets/app-1a2b.css',
      '/_build/assets/app-1a2b.js',
      '/assets/ssr-3c4d.css',
      '/favicon.svg',
    ]);
    for (const path of result.files) {
      const file = join(publicDir, path);
      const identity = readFileSync(file);
      expect(brotliDecompressSync(readFileSync(`${file}.br`)).equals(identity), path).toBe(true);
      expect(gunzipSync(readFileSync(`${file}.gz`)).equals(identity), path).toBe(true);
      expect(readFileSync(`${file}.br`).length).toBeLessThan(identity.length);
    }
    for (const none of ['_build/.vite/manifest.json', 'logo.png', 'tiny.txt']) {
      expect(existsSync(join(publicDir, `${none}.br`)), none).toBe(false);
      expect(existsSync(join(publicDir, `${none}.gz`)), none).toBe(false);
    }
    expect(result.bytes.br).toBeLessThan(result.bytes.identity);
  });

  it('compresses no variant again when run twice', () => {
    const publicDir = mkdtempSync(join(tmpdir(), 'public-'));
    tree(publicDir, { '_build/assets/app-1a2b.js': code('app') });
    precompressPublicFiles(publicDir);
    expect(precompressPublicFiles(publicDir).files).toEqual(['/_build/assets/app-1a2b.js']);
    expect(existsSync(join(publicDir, '_build/assets/app-1a2b.js.br.br'))).toBe(false);
  });
});

describe('shouldPrecompress', () => {
  it.each([
    ['/_build/assets/app-1a2b.js', true],
    ['/favicon.svg', true],
    ['/_build/.vite/manifest.json', false],
    ['/_build/.vite/ssr-manifest.json', false],
    ['/_build/assets/app-1a2b.js.map', false],
    ['/_build/assets/app-1a2b.js.br', false],
    ['/logo.png', false],
  ])('%s → %j', (path, expected) => {
    expect(shouldPrecompress(path)).toBe(expected);
  });
});
