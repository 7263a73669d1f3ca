/**
 * Source maps against the production build: client maps are kept out of what is served, every
 * chunk carries a Sentry debug ID found in exactly one map, shared chunks are named for what
 * they hold, and a server failure's stack names our TypeScript in the log and in the event.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInAppFrame } from '#app/monitoring/in-app';
import {
  CLIENT_MAPS_DIR,
  clientChunks,
  clientMaps,
  debugIdsOf,
  filesUnder,
  PUBLIC_DIR,
} from '#tests/support/client-build';
import { exampleServerWithFakeSentry } from '#tests/support/example-server-with-fake-sentry';
import { parseEnvelope } from '#tests/support/received-envelopes';
import { EXAMPLE_LOADER_FILE, exampleLoaderLine } from '#tests/support/source-line';

// Where the example loader throws.
const LOADER_LINE = exampleLoaderLine();
const LOADER_FRAME = new RegExp(`at loader \\(\\S*${EXAMPLE_LOADER_FILE}:${LOADER_LINE}:\\d+\\)`);

const app = exampleServerWithFakeSentry();

describe('client source maps', () => {
  it('exist for every served chunk in .output/sourcemaps/client, beside none of them', () => {
    const chunks = clientChunks();
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(existsSync(join(CLIENT_MAPS_DIR, '_build/assets', `${chunk.name}.map`))).toBe(true);
    }
    expect(filesUnder(PUBLIC_DIR).filter((file) => file.endsWith('.map'))).toEqual([]);
  });

  it('answer 404 at every /_build/ path a map could have, and at the server assets path', async () => {
    const paths = [
      ...clientMaps().map((map) => `/${map.path}`),
      ...clientChunks().map((chunk) => `/_build/assets/${chunk.name}.map`),
      '/_build/assets/client.js%2Emap',
      '/assets/ssr.js.map',
    ];
    for (const path of paths) {
      const response = await fetch(app.server.url + path);
      await response.arrayBuffer();
      expect(response.status, path).toBe(404);
    }
  });

  it('are never referenced from a served chunk', async () => {
    for (const chunk of clientChunks()) {
      const response = await fetch(`${app.server.url}/_build/assets/${chunk.name}`);
      const code = await response.text();
      expect(response.status, chunk.name).toBe(200);
      expect(code, chunk.name).not.toContain('sourceMappingURL');
      expect(response.headers.get('sourcemap'), chunk.name).toBeNull();
      expect(response.headers.get('x-sourcemap'), chunk.name).toBeNull();
    }
  });

  it("give each chunk's debug ID to exactly one map, the chunk's own", () => {
    const maps = clientMaps();
    for (const chunk of clientChunks()) {
      const { comment, snippet } = debugIdsOf(chunk.code);
      expect(comment, chunk.name).toMatch(/^[0-9a-f-]{36}$/);
      expect(snippet, chunk.name).toBe(comment);
      // The ID is a hash of the chunk's code: two byte-identical chunks (two routes with the
      // same component) would share it, and Sentry could read the wrong route's map.
      const owners = maps.filter((map) => map.debugId === comment);
      expect(owners.map((map) => map.path)).toEqual([`_build/assets/${chunk.name}.map`]);
    }
  });
});

describe('client chunk names', () => {
  const names = () => clientChunks().map((chunk) => chunk.name);

  it('say what the shared chunks hold', () => {
    for (const shared of ['vendor-react', 'vendor-sentry', 'router', 'app']) {
      expect(names().filter((name) => name.startsWith(`${shared}-`))).toHaveLength(1);
    }
    const react = clientChunks().find((chunk) => chunk.name.startsWith('vendor-react-'));
    expect(react?.code).toContain('react.production');
  });

  it("carry a route's name only for that route's own chunk", () => {
    const manifest = JSON.parse(
      readFileSync(join(PUBLIC_DIR, '_build/.vite/manifest.json'), 'utf8'),
    ) as Record<string, { file: string; src?: string }>;
    const routeChunk = (route: string) =>
      Object.values(manifest).find((entry) => entry.src === `${route}?tsr-split=component`)?.file;
    for (const [prefix, route] of [
      ['ssr-error-', 'app/routes/sentry-example-page/ssr-error.tsx'],
      ['about-', 'app/routes/about.tsx'],
    ] as const) {
      const named = names().filter((name) => name.startsWith(prefix));
      expect(
        named.map((name) => `assets/${name}`),
        prefix,
      ).toEqual([routeChunk(route)]);
    }
  });
});

describe('in-app by chunk name', () => {
  it('holds for every chunk: in-app chunks have no node_modules source, library chunks no app/ source', () => {
    const judged = clientChunks().map((chunk) => {
      const map = JSON.parse(
        readFileSync(join(CLIENT_MAPS_DIR, '_build/assets', `${chunk.name}.map`), 'utf8'),
      ) as { sources: string[] };
      const inApp = isInAppFrame(`http://127.0.0.1/_build/assets/${chunk.name}`);
      return { name: chunk.name, inApp, sources: map.sources };
    });
    for (const { name, inApp, sources } of judged) {
      const forbidden = inApp ? /\/node_modules\// : /(^|\/)app\//;
      expect(
        sources.filter((source) => forbidden.test(source)),
        name,
      ).toEqual([]);
    }
    expect(judged.filter((chunk) => chunk.inApp).length).toBeGreaterThan(3);
    expect(judged.filter((chunk) => !chunk.inApp).length).toBeGreaterThan(3);
  });
});

describe('a server failure', () => {
  it('names the TypeScript file, line and function in the log line and the Sentry event', async () => {
    const response = await fetch(`${app.server.url}/sentry-example-page/ssr-error`);
    const digest = /Digest: ([0-9a-f]{10})/.exec(await response.text())?.[1];
    expect(response.status).toBe(500);
    await app.server.waitForOutput(new RegExp(`"digest":"${digest}"`));
    await app.server.stderrBarrier();
    const line = app.server
      .output()
      .split('\n')
      .find((text) => text.includes(`"digest":"${digest}"`));
    const stack = (JSON.parse(line ?? '{}') as { stack?: string }).stack ?? '';
    expect(stack.split('\n')[1]).toMatch(LOADER_FRAME);
    expect(stack).not.toContain('.output/server/chunks');

    const requests = await app.sentry.waitForRequests(1);
    const frames = requests
      .flatMap((request) => parseEnvelope(request.body).items)
      .map((item) => item.payload as SentryEvent)
      .find((event) => event.tags?.digest === digest)?.exception?.values[0]?.stacktrace?.frames;
    expect(frames?.at(-1)).toMatchObject({ function: 'loader', lineno: LOADER_LINE, in_app: true });
    expect(frames?.at(-1)?.filename).toMatch(/app\/routes\/sentry-example-page\/ssr-error\.tsx$/);
    // The router that called the loader is a dependency: not in-app, so Sentry groups by ours.
    const dependencies = (frames ?? []).filter((frame) =>
      frame.filename?.includes('node_modules/'),
    );
    expect(dependencies.some((frame) => frame.filename?.includes('@tanstack/router-core'))).toBe(
      true,
    );
    expect(dependencies.map((frame) => frame.in_app)).toEqual(dependencies.map(() => false));
  });
});

interface SentryEvent {
  tags?: Record<string, string>;
  exception?: {
    values: Array<{
      stacktrace?: { frames: Array<{ filename?: string; function?: string; in_app?: boolean }> };
    }>;
  };
}
