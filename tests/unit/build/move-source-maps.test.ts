import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moveSourceMaps } from '../../../build/move-source-maps';

function tree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

describe('moveSourceMaps', () => {
  it('moves client maps keeping their path, removes the other maps, leaves everything else', () => {
    const output = mkdtempSync(join(tmpdir(), 'maps-'));
    const publicDir = join(output, 'public');
    const mapsDir = join(output, 'sourcemaps/client');
    tree(publicDir, {
      '_build/assets/client-a.js': 'client',
      '_build/assets/client-a.js.map': 'client map',
      '_build/assets/nested/x.js.map': 'nested map',
      '_build/.vite/manifest.json': '{}',
      'assets/ssr-b.js.map': 'server router map',
      '_server/assets/server-c.js.map': 'server router map',
      'favicon.svg': '<svg/>',
    });
    // A map left by an older build.
    tree(mapsDir, { '_build/assets/old.js.map': 'old' });

    const result = moveSourceMaps(publicDir, mapsDir, '/_build');

    expect(result.moved.sort()).toEqual([
      '_build/assets/client-a.js.map',
      '_build/assets/nested/x.js.map',
    ]);
    expect(result.removed.sort()).toEqual([
      '_server/assets/server-c.js.map',
      'assets/ssr-b.js.map',
    ]);
    expect(readFileSync(join(mapsDir, '_build/assets/client-a.js.map'), 'utf8')).toBe('client map');
    expect(existsSync(join(mapsDir, '_build/assets/nested/x.js.map'))).toBe(true);
    expect(existsSync(join(mapsDir, '_build/assets/old.js.map'))).toBe(false);
    for (const gone of ['_build/assets/client-a.js.map', 'assets/ssr-b.js.map']) {
      expect(existsSync(join(publicDir, gone))).toBe(false);
    }
    for (const kept of ['_build/assets/client-a.js', '_build/.vite/manifest.json', 'favicon.svg']) {
      expect(existsSync(join(publicDir, kept))).toBe(true);
    }
  });
});
