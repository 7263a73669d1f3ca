/**
 * Development's error overlay, the server's half (decision 0970). The browser shows vite's own
 * overlay element (`vite-error-overlay`) with what this module gives it, in the view
 * ./dev-failure-view.ts makes:
 *
 * - a server failure (SSR render, loader, beforeLoad, server function) is remembered here by
 *   its digest when it is recorded; the page, which only has the digest, asks for it;
 * - a browser failure's stack is sent here, resolved through the dev server's own source maps
 *   (the transformed modules' maps, as vite serves them), printed as one terminal line, and
 *   given back.
 *
 * The dev server's maps are also what /errors resolves browser frames with under `vinxi dev`
 * (`devBuildMaps`). build/dev-overlay.ts mounts the endpoint on the client router's vite server
 * under `vinxi dev`; the production build has no route to it and no client code for it.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { text } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { TraceMap } from '@jridgewell/trace-mapping';
import { LRUCache } from 'lru-cache';
import * as v from 'valibot';
import type { ViteDevServer } from 'vite';
import type { BuildMaps } from '#app/server/inbox/source-maps/map-store.server';
import {
  type MapLookup,
  NO_MAP,
  type SourceMapStore,
} from '#app/server/inbox/source-maps/map-store.server';
import { processShared } from '#app/start-1.120/process-shared.server';
import { devViteServer } from '../../../build/dev-overlay';
import {
  BrowserFailure,
  blockOf,
  browserFailureLine,
  browserFailureView,
  type OverlayError,
  overlayErrorOf,
  type ProjectFiles,
  serverFailureView,
} from './dev-failure-view';
import type { FailureContext } from './record-failure.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'dev-overlay-failures': LRUCache<string, OverlayError>;
  }
}

/** Server failures the pages may still ask for; a dev session makes few. */
const REMEMBERED_FAILURES = 100;
/** A browser report's body: a message and a stack, never more. */
const MAX_BROWSER_REPORT = 64 * 1024;

const serverFailures = processShared(
  'dev-overlay-failures',
  () => new LRUCache<string, OverlayError>({ max: REMEMBERED_FAILURES }),
);

function projectFiles(): ProjectFiles {
  const root = process.cwd();
  return { root, readSource: (file) => readFileSync(join(root, file), 'utf8') };
}

/**
 * Where a server failure is recorded, in development: remembers its overlay under its digest
 * (the page asks for it as soon as it runs) and gives the terminal block. One view for both.
 */
export function devFailureEntry(error: unknown, digest: string, context: FailureContext): string {
  const view = serverFailureView(error, projectFiles());
  const where = `${context.phase} of ${context.route}`;
  serverFailures.set(digest, overlayErrorOf(view, `Server: ${where} failed · digest ${digest}`));
  return blockOf(view, digest, context);
}

/**
 * `GET …/__dev-errors?digest=…`: a server failure's overlay. `POST …/__dev-errors` with
 * `{message, stack, page}`: a browser failure's, printed on the way.
 */
export async function answerDevErrors(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://dev.invalid');
  if (req.method === 'GET') {
    const found = serverFailures.get(url.searchParams.get('digest') ?? '');
    return found ? json(res, 200, found) : json(res, 404, { error: 'no such failure' });
  }
  if (req.method !== 'POST') return json(res, 405, { error: 'GET or POST' });
  const failure = parseBrowserFailure(await bodyOf(req));
  const store = devMapStore();
  if (!failure || !store) return json(res, 400, { error: 'expected {message, stack, page}' });
  const view = await browserFailureView(failure, store, projectFiles());
  console.error(browserFailureLine(view, failure.page));
  return json(res, 200, overlayErrorOf(view, `Browser: ${failure.page}`));
}

function parseBrowserFailure(body: string | undefined): BrowserFailure | undefined {
  try {
    const parsed = v.safeParse(BrowserFailure, JSON.parse(body ?? ''));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

/** The body as text, or undefined past MAX_BROWSER_REPORT bytes (read whole, never split). */
async function bodyOf(req: IncomingMessage): Promise<string | undefined> {
  let bytes = 0;
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > MAX_BROWSER_REPORT ? new Error('too large') : null, chunk);
    },
  });
  try {
    const [, body] = await Promise.all([pipeline(req, bounded), text(bounded)]);
    return body;
  } catch {
    return undefined;
  }
}
function json(res: ServerResponse, status: number, value: unknown): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('cache-control', 'no-store');
  res.end(JSON.stringify(value));
}

/**
 * Source maps of the modules the dev server serves: `/_build/app/routes/about.tsx?tsr-split=component`
 * is asked of vite as it served it (the query picks the module), and the map's sources, which
 * vite writes relative to the module's file, are made absolute.
 */
function devServerMaps(server: ViteDevServer): SourceMapStore {
  const base = server.config.base;
  return {
    byDebugId: async () => ({ found: false, reason: NO_MAP }),
    async byChunkPath(path, url = path): Promise<MapLookup> {
      const parsed = new URL(url, 'http://dev.invalid');
      if (!parsed.pathname.startsWith(base)) return { found: false, reason: NO_MAP };
      const id = `/${parsed.pathname.slice(base.length)}${parsed.search}`;
      // A frame's URL is event data: only the project's own files are transformed for it
      // (transformRequest skips the fs.allow check vite's HTTP middleware makes).
      if (!insideProject(id, server.config.root)) return { found: false, reason: NO_MAP };
      const result = await server.transformRequest(id);
      const module = await server.moduleGraph.getModuleByUrl(id);
      const map = result?.map;
      if (!map || !('sources' in map) || !module?.file) return { found: false, reason: NO_MAP };
      const dir = dirname(module.file);
      const sources = map.sources.map((source) =>
        source ? resolve(dir, source.replace(/[?#].*$/, '')) : source,
      );
      return { found: true, map: new TraceMap(JSON.stringify({ ...map, sources })) };
    },
  };
}

/** `/app/routes/about.tsx` (root-relative) or `/@fs/<absolute path>` under `root`; nothing climbs out. */
export function insideProject(id: string, root: string): boolean {
  const path = decodeURIComponent(id.replace(/[?#].*$/, ''));
  if (path.split('/').includes('..')) return false;
  if (!path.startsWith('/@fs/')) return true;
  return resolve(path.slice('/@fs'.length)).startsWith(`${resolve(root)}/`);
}

/** The client router's vite server's maps, under `vinxi dev` (build/dev-overlay.ts gives it). */
function devMapStore(): SourceMapStore | undefined {
  const server = devViteServer().current;
  return server ? devServerMaps(server) : undefined;
}

/** What /errors resolves browser frames with under `vinxi dev`, where no build wrote maps. */
export function devBuildMaps(): BuildMaps | undefined {
  const store = devMapStore();
  return store ? { store, projectRoot: process.cwd() } : undefined;
}
