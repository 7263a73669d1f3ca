/**
 * Tests of the directory store (`createDirectoryMapStore` and the build's maps in map-store.server.ts), one section per part, in the module's order.
 */
import { mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildOutputOf,
  createDirectoryMapStore,
  MAX_CACHED_MAPS,
  type MapFileSystem,
  nodeMapFileSystem,
} from '#app/server/inbox/source-maps/map-store.server';
import { resolveFrame } from '#app/server/inbox/source-maps/resolve-frame';
import {
  buildFixture,
  CHUNK_URL,
  type Fixture,
  LINES,
  ROUTE_FILE,
  writeMapDir,
} from './fixture-build';

let fixture: Fixture;
const OTHER_ID = '0b6e1f6a-7d2c-4c55-9d77-3c1f0e0a0b01';

beforeAll(async () => {
  fixture = await buildFixture();
});

/** The real file system, with every listing and every file opened written down. */
function watched(): MapFileSystem & { listed: string[]; opened: string[] } {
  const listed: string[] = [];
  const opened: string[] = [];
  return {
    listed,
    opened,
    list: (dir) => {
      listed.push(dir);
      return nodeMapFileSystem.list(dir);
    },
    read: (path, maxBytes) => {
      opened.push(path);
      return nodeMapFileSystem.read(path, maxBytes);
    },
  };
}

const throwingFrame = () => (fixture.exception.stacktrace?.frames ?? []).at(-1) ?? {};

describe('the directory map store', () => {
  it('reads nothing until asked, then finds a map by its debug id and resolves with it', async () => {
    const root = await writeMapDir({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    const fileSystem = watched();
    const store = createDirectoryMapStore({ root, fileSystem });
    expect(fileSystem.listed).toEqual([]);
    const lookup = await store.byDebugId(fixture.map.debugId);
    expect(lookup.found).toBe(true);
    if (!lookup.found) return;
    expect(resolveFrame(lookup.map, throwingFrame())).toMatchObject({
      path: ROUTE_FILE,
      line: LINES.throwInFailWith,
    });
  });

  it('finds a map by the chunk file name', async () => {
    const root = await writeMapDir({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    const store = createDirectoryMapStore({ root });
    const lookup = await store.byChunkPath(new URL(CHUNK_URL).pathname);
    expect(lookup).toMatchObject({ found: true, debugId: fixture.map.debugId });
  });

  it('opens only the map files its scan found under the root, never a symlink', async () => {
    const outside = await writeMapDir({
      'secret.js.map': fixture.mapText,
      'dir/inner.js.map': fixture.mapText,
    });
    const root = await writeMapDir({
      'assets/index-Fx1a2b3c.js.map': fixture.mapText,
      'assets/index-Fx1a2b3c.js': fixture.code,
      'notes.txt': 'not a map',
    });
    await symlink(join(outside, 'secret.js.map'), join(root, 'assets/linked.js.map'));
    await symlink(join(outside, 'dir'), join(root, 'linked-dir'));
    const fileSystem = watched();
    const store = createDirectoryMapStore({ root, fileSystem });
    const asked = [
      await store.byChunkPath('/_build/assets/linked.js'),
      await store.byChunkPath('/linked-dir/inner.js'),
      await store.byChunkPath('/../../../../etc/passwd'),
      await store.byChunkPath(`/${'../'.repeat(10)}${outside}/secret.js`),
      await store.byDebugId('../../../etc/passwd'),
      await store.byDebugId('__proto__'),
      await store.byChunkPath('/__proto__'),
      await store.byChunkPath('/constructor'),
    ];
    for (const lookup of asked)
      expect(lookup).toEqual({ found: false, reason: 'no map for this file' });
    await store.byDebugId(fixture.map.debugId);
    expect(new Set(fileSystem.opened)).toEqual(
      new Set([join(root, 'assets/index-Fx1a2b3c.js.map')]),
    );
    for (const dir of fileSystem.listed) expect(dir.startsWith(root)).toBe(true);
    expect(fileSystem.listed.some((dir) => dir.includes('linked-dir'))).toBe(false);
  });

  it('skips a map over the size bound with a reason, without reading it', async () => {
    const root = await writeMapDir({ 'assets/big-1.js.map': fixture.mapText });
    const store = createDirectoryMapStore({ root, maxMapBytes: 100 });
    expect(await store.byChunkPath('/_build/assets/big-1.js')).toEqual({
      found: false,
      reason: 'map larger than 1 KB',
    });
  });

  it.each([
    ['not JSON', '{"version":3,'],
    ['not a v3 map', '{"version":2,"mappings":""}'],
    ['mappings that are no string', '{"version":3,"sources":["dsn.ts"],"names":[],"mappings":42}'],
    ['sources that are no list', '{"version":3,"sources":"dsn.ts","names":[],"mappings":"AAAA"}'],
    ['a JSON array', '[1,2,3]'],
    ['a prototype key', '{"__proto__":{"version":3},"mappings":"AAAA"}'],
  ])('answers "unreadable source map" for %s', async (_, text) => {
    const root = await writeMapDir({ 'bad-1.js.map': text });
    const store = createDirectoryMapStore({ root });
    expect(await store.byChunkPath('/bad-1.js')).toEqual({
      found: false,
      reason: 'unreadable source map',
    });
  });

  it('an empty or missing root is an empty index', async () => {
    const store = createDirectoryMapStore({ root: join(tmpdir(), 'no-such-build-dir-xyz') });
    expect(await store.byDebugId(fixture.map.debugId)).toEqual({
      found: false,
      reason: 'no map for this file',
    });
  });

  it('keeps at most its bound of parsed maps, however many are loaded', async () => {
    const count = MAX_CACHED_MAPS + 14;
    const files: Record<string, string> = {};
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const debugId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      ids.push(debugId);
      files[`assets/chunk-${i}.js.map`] = JSON.stringify({ ...fixture.map, debugId });
    }
    const root = await writeMapDir(files);
    const fileSystem = watched();
    const store = createDirectoryMapStore({ root, fileSystem });
    for (const id of ids) expect((await store.byDebugId(id)).found).toBe(true);
    expect(store.cacheStats().maps).toBe(MAX_CACHED_MAPS);

    const bytes = Buffer.byteLength(fixture.mapText) + 10;
    const byBytes = createDirectoryMapStore({ root, maxCachedBytes: bytes * 3 });
    for (const id of ids) await byBytes.byDebugId(id);
    expect(byBytes.cacheStats().maps).toBeLessThanOrEqual(3);
    expect(byBytes.cacheStats().bytes).toBeLessThanOrEqual(bytes * 3);

    // A cached map is not read again.
    const reads = fileSystem.opened.length;
    await store.byDebugId(ids.at(-1) as string);
    expect(fileSystem.opened.length).toBe(reads);
  });

  it('a map rebuilt since the scan is another build’s, not used', async () => {
    const root = await writeMapDir({ 'assets/index-Fx1a2b3c.js.map': fixture.mapText });
    const store = createDirectoryMapStore({ root });
    await store.byChunkPath('/_build/assets/nothing.js'); // the scan
    await writeFile(
      join(root, 'assets/index-Fx1a2b3c.js.map'),
      JSON.stringify({ ...fixture.map, debugId: OTHER_ID }),
    );
    expect(await store.byDebugId(fixture.map.debugId)).toEqual({
      found: false,
      reason: 'map for another build',
    });
  });

  it('does not descend without bound', async () => {
    const root = await mkdtemp(join(tmpdir(), 'source-map-deep-'));
    const deep = join(root, ...Array.from({ length: 30 }, (_, i) => `d${i}`));
    await mkdir(deep, { recursive: true });
    await writeFile(join(deep, 'deep-1.js.map'), fixture.mapText);
    const fileSystem = watched();
    const store = createDirectoryMapStore({ root, fileSystem });
    expect((await store.byChunkPath('/deep-1.js')).found).toBe(false);
    expect(fileSystem.listed.length).toBeLessThanOrEqual(13);
  });
});

describe('buildOutputOf', () => {
  it('finds the maps from the built entry', () => {
    expect(buildOutputOf('file:///srv/app/.output/server/index.mjs')).toEqual({
      clientMapsDir: '/srv/app/.output/sourcemaps/client',
      publicDir: '/srv/app/.output/public',
      serverDir: '/srv/app/.output/server',
      projectRoot: '/srv/app',
    });
  });

  it.each([
    ['a source module under vinxi dev', 'file:///srv/app/app/server/inbox/env.server.ts'],
    ['a server chunk not rewritten by nitro', 'file:///srv/app/.output/server/chunks/_/start.mjs'],
    ['another index.mjs', 'file:///srv/app/.output/public/index.mjs'],
    ['not a file URL', 'http://localhost:3000/server/index.mjs'],
    ['not a URL', 'index.mjs'],
  ])('finds none for %s', (_, url) => {
    expect(buildOutputOf(url)).toBeUndefined();
  });
});
