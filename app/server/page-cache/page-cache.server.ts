/**
 * The page cache: pages that are the same for every visitor (a route opts in, see
 * ./page-cache-policy.ts), kept after their first whole, successful render, in brotli, gzip and
 * identity, and answered by the built server's entry before nitro, Start or the render admission
 * see the request, with an ETag and a 304 for `If-None-Match`. In memory, bounded in bytes, keyed
 * by the build's stamp: a restart or a new build starts it empty. The built server turns it on
 * (`startPageCache`, from node-server.server.ts); under `vinxi dev` it stays off.
 * Decision: docs/decisions/1300-page-cache.md.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, gzip, constants as zlib } from 'node:zlib';
import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';
import { pageContentSecurityPolicy } from '#app/server/security/security-headers.server';
import { processShared } from '#app/start-1.120/process-shared.server';
import {
  type AgentClass,
  carriesPerRequestQuery,
  inlineScriptHashes,
  isFresh,
  noneMatch,
  type PagePolicy,
  pageKey,
  routeKey,
  withoutNonce,
} from './page-cache-policy';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'page-cache': { cache: PageCache | undefined };
  }
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

type Coding = 'br' | 'gzip' | 'identity';
const CODINGS: Coding[] = ['br', 'gzip', 'identity'];

/** One kept page: its status, its CSP (inline scripts by hash), a body and an ETag per coding. */
interface CachedPage {
  status: number;
  policy: PagePolicy;
  storedAt: number;
  contentSecurityPolicy: string;
  bodies: Record<Coding, { body: Buffer; etag: string }>;
  bytes: number;
}

interface PageCache {
  /** A short hash of the build's stamp, in every ETag: a new build's pages never match old tags. */
  build: string;
  /** The policy of each opted-in route's path: how to key a request before its page is found. */
  policies: LRUCache<string, PagePolicy>;
  pages: LRUCache<string, CachedPage>;
  /**
   * Not-found pages, one per path, apart: every unknown path is one, and a visitor who asks for
   * many must not push the real pages out.
   */
  notFound: LRUCache<string, CachedPage>;
  /** Pages being compressed now, by store and key. */
  compressing: Set<string>;
}

/**
 * Brotli 5 and gzip 6, not the precompressed files' 11 and 9: a page is compressed when a visitor
 * first asks for it, and unknown paths are anyone's to ask for. On a 20 KB page, quality 11 took
 * 30 ms of CPU and 5 took 1 ms, for 6% more bytes.
 */
const BROTLI_QUALITY = 5;
const GZIP_LEVEL = 6;

const state = processShared('page-cache', () => ({ cache: undefined }));

/** The share of the bound that not-found pages may take. */
const NOT_FOUND_SHARE = 1 / 8;
/** Routes a cache knows the policy of: opted-in paths, few in any app. */
const MAX_POLICIES = 10_000;

/**
 * Turns the cache on for this process, empty. `buildStamp`: the build's own record of what it
 * was built from (the stamp scripts/build-state.mjs writes beside the build); `maxBytes` 0
 * leaves it off (PAGE_CACHE_MAX_MB=0).
 */
export function startPageCache({
  buildStamp,
  maxBytes,
}: {
  buildStamp: string;
  maxBytes: number;
}): void {
  if (maxBytes <= 0) {
    state.cache = undefined;
    return;
  }
  const sizeCalculation = (page: CachedPage) => page.bytes;
  const notFoundBytes = Math.max(1, Math.floor(maxBytes * NOT_FOUND_SHARE));
  state.cache = {
    build: createHash('sha256').update(buildStamp).digest('base64url').slice(0, 10),
    policies: new LRUCache({ max: MAX_POLICIES }),
    pages: new LRUCache({ maxSize: maxBytes - notFoundBytes, sizeCalculation }),
    notFound: new LRUCache({ maxSize: notFoundBytes, sizeCalculation }),
    compressing: new Set(),
  };
}

/** Whether renders should offer their pages (the cache is on). */
export function pageCacheOn(): boolean {
  return state.cache !== undefined;
}

/** Browsers and crawlers are served different renders (render-page.server.tsx, isbot). */
export function agentClassOf(userAgent: string | null | undefined): AgentClass {
  return isbot(userAgent) ? 'crawler' : 'browser';
}

/**
 * Answers a GET or HEAD from the cache when it holds a fresh page for it; false otherwise (the
 * request goes on to be rendered). The security headers are set already (the entry's base
 * ones); the page's own are those a render sets: its CSP, `Content-Type`, and `Cache-Control`
 * as the entry set it for every page.
 */
export function serveCachedPage(req: IncomingMessage, res: ServerResponse, path: string): boolean {
  const cache = state.cache;
  if (!cache || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  // What the entry says no cache may store (the inbox) is never answered from this one either.
  if (res.getHeader('cache-control') === 'no-store') return false;
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  const search = query === -1 ? '' : url.slice(query + 1);
  const page = lookUp(cache, agentClassOf(req.headers['user-agent']), path, search);
  if (!page) return false;
  const coding = codingFor(req.headers['accept-encoding']);
  const { body, etag } = page.bodies[coding];
  res.setHeader('content-security-policy', page.contentSecurityPolicy);
  res.setHeader('content-type', 'text/html; charset=UTF-8');
  res.setHeader('vary', 'Accept-Encoding');
  if (coding !== 'identity') res.setHeader('content-encoding', coding);
  // Only a 200 is the page a 304 stands for; a not-found page is sent again.
  if (page.status === 200) {
    res.setHeader('etag', etag);
    if (noneMatch(req.headers['if-none-match'], etag)) {
      res.statusCode = 304;
      res.removeHeader('content-encoding');
      res.end();
      return true;
    }
  }
  res.statusCode = page.status;
  res.setHeader('content-length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

function lookUp(
  cache: PageCache,
  agent: AgentClass,
  path: string,
  search: string,
): CachedPage | undefined {
  const policy = cache.policies.get(routeKey(agent, path));
  const key = policy ? pageKey(agent, path, search, policy.query) : routeKey(agent, path);
  const store = policy ? cache.pages : cache.notFound;
  const page = store.get(key);
  if (!page || carriesPerRequestQuery(search, page.policy.perRequestQuery)) return undefined;
  if (isFresh(page.storedAt, page.policy.maxAgeMs, Date.now())) return page;
  store.delete(key);
  return undefined;
}

/** The coding to send: brotli, else gzip, else the page as it is; none the client refuses. */
function codingFor(acceptEncoding: string | undefined): Coding {
  if (!acceptEncoding) return 'identity';
  // x-gzip is gzip (RFC 9110 §8.4.1.3), a name negotiator does not know.
  const header = acceptEncoding.replace(/\bx-gzip\b/gi, 'gzip');
  // Brotli whenever it is acceptable at all, as nitro's static handler sends the public files.
  const accepted = new Negotiator({ headers: { 'accept-encoding': header } }).encodings(CODINGS);
  return CODINGS.find((coding) => accepted.includes(coding)) ?? 'identity';
}

/** A finished render that may be kept (render-page.server.tsx has decided that, ./page-cache-policy.ts's `mayKeep`). */
export interface RenderedPage {
  kind: 'page' | 'not-found';
  /** The request's URL as the entry saw it (path and query), so both key it alike. */
  url: string;
  agent: AgentClass;
  policy: PagePolicy;
  status: number;
  html: string;
  /** The nonce its scripts were rendered with, taken out of the kept copy. */
  nonce: string | undefined;
  /** The Spotlight sidecar the page's CSP lets it reach (development only). */
  spotlightUrl: string | undefined;
}

/**
 * Keeps a render: the page without its nonce, its inline scripts' hashes in its CSP, compressed
 * once (off the event loop, in zlib's threads) for every later visitor.
 */
export async function keepRenderedPage(rendered: RenderedPage): Promise<void> {
  const cache = state.cache;
  if (!cache) return;
  const { store, key } = placeOf(cache, rendered);
  // Renders that began before the first was kept do not replace it: one page, one tag. Nor does
  // a render whose twin is being compressed: renders of a page not kept yet (a burst at a start,
  // or a visitor asking for many unknown paths) compress each page once, not once a render.
  const place = `${store === cache.notFound ? 'not-found' : 'page'} ${key}`;
  if (holdsFresh(store, key) || cache.compressing.has(place)) return;
  cache.compressing.add(place);
  const html = rendered.nonce ? withoutNonce(rendered.html, rendered.nonce) : rendered.html;
  const identity = Buffer.from(html);
  let br: Buffer;
  let gz: Buffer;
  try {
    [br, gz] = await Promise.all([
      brotliAsync(identity, {
        params: {
          [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
          [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
          [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
      gzipAsync(identity, { level: GZIP_LEVEL }),
    ]);
  } finally {
    cache.compressing.delete(place);
  }
  if (holdsFresh(store, key)) return;
  // `.` is no base64url character: the build's part and the page's part stay apart.
  const tag = `${cache.build}.${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}`;
  const page: CachedPage = {
    status: rendered.status,
    policy: rendered.policy,
    storedAt: Date.now(),
    contentSecurityPolicy: pageContentSecurityPolicy(
      { hashes: inlineScriptHashes(html) },
      rendered.spotlightUrl,
    ),
    bodies: {
      identity: { body: identity, etag: `"${tag}"` },
      br: { body: br, etag: `"${tag}.br"` },
      gzip: { body: gz, etag: `"${tag}.gz"` },
    },
    bytes: identity.length + br.length + gz.length,
  };
  if (rendered.kind === 'page')
    cache.policies.set(routeKey(rendered.agent, pathOf(rendered.url)), rendered.policy);
  store.set(key, page);
}

/** Where a render is kept: its store (pages, or not-found pages) and its key there. */
function placeOf(
  cache: PageCache,
  { kind, url, agent, policy }: RenderedPage,
): { store: LRUCache<string, CachedPage>; key: string } {
  const path = pathOf(url);
  if (kind === 'not-found') return { store: cache.notFound, key: routeKey(agent, path) };
  const search = url.length > path.length ? url.slice(path.length + 1) : '';
  return { store: cache.pages, key: pageKey(agent, path, search, policy.query) };
}

function holdsFresh(store: LRUCache<string, CachedPage>, key: string): boolean {
  const page = store.peek(key);
  return page !== undefined && isFresh(page.storedAt, page.policy.maxAgeMs, Date.now());
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
