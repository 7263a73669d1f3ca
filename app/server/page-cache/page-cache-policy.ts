/**
 * The page cache's policy, pure: what a route declares, which requests share a cached page,
 * whether a render may be kept, the inline scripts a cached page's CSP allows by hash, and
 * `If-None-Match`. The store and the serving are in ./page-cache.server.ts; why a cache at all
 * and what it never holds: docs/decisions/1300-page-cache.md.
 */
import { createHash } from 'node:crypto';

/**
 * A route's opt-in (`staticData.pageCache`, or the root's `notFoundPageCache` for the not-found
 * page): its page is the same for every visitor, nothing in it comes from a cookie, a session
 * or the request, so the first render can answer everyone until it is stale.
 */
export interface PageCacheOptIn {
  /** How long a render stays true (its data changes with time); unset: until the build changes. */
  maxAgeMs?: number;
  /** Query keys the page is rendered from: each value is a page of its own. Others are ignored. */
  query?: readonly string[];
}

/** What the cache keeps of a route's declarations, beside its pages. */
export interface PagePolicy extends PageCacheOptIn {
  /**
   * Query keys that some route of the page acts on per request (`staticData.perRequestQuery`):
   * a request that carries one is rendered, and that render is never kept.
   */
  perRequestQuery: readonly string[];
}

/** Browsers get the streamed page; crawlers the whole page at once (isbot): two pages. */
export type AgentClass = 'browser' | 'crawler';

/**
 * The key of the page a request is answered with: its agent class, its path as sent, and the
 * values of the declared query keys only (sorted), so a query string the route does not declare
 * neither busts nor grows the cache.
 */
export function pageKey(
  agent: AgentClass,
  path: string,
  search: string,
  declared: readonly string[] = [],
): string {
  const base = `${agent} ${path}`;
  if (declared.length === 0 || search === '') return base;
  const params = new URLSearchParams(search);
  const kept = new URLSearchParams();
  for (const key of [...declared].sort()) {
    for (const value of params.getAll(key)) kept.append(key, value);
  }
  const query = kept.toString();
  return query === '' ? base : `${base}?${query}`;
}

/** The route-level key: which policy applies to a path, before its query is read. */
export function routeKey(agent: AgentClass, path: string): string {
  return `${agent} ${path}`;
}

/** Whether the query string carries a key some route acts on per request. */
export function carriesPerRequestQuery(search: string, keys: readonly string[]): boolean {
  if (keys.length === 0 || search === '') return false;
  const params = new URLSearchParams(search);
  return keys.some((key) => params.has(key));
}

/** What decides whether a finished render may be kept, as plain data. */
export interface RenderOutcome {
  method: string;
  status: number;
  /** 'page': an opted-in route's page; 'not-found': the not-found page; undefined: neither. */
  kind: 'page' | 'not-found' | undefined;
  /** A route or the render failed, or the router redirected. */
  failedOrRedirected: boolean;
  /** The visitor went away before the end: what was rendered may be cut short. */
  clientGone: boolean;
  /** The response sets a cookie: it is someone's own. */
  setsCookie: boolean;
  /** The request carried a query key a route acts on per request. */
  perRequest: boolean;
}

/**
 * Only a whole, successful GET of an opted-in page (200) or of the not-found page (404) is kept:
 * a failed page, a redirect, a page cut short or one that is someone's own never is, and the
 * failure is recorded and answered exactly as it would be without a cache.
 */
export function mayKeep(outcome: RenderOutcome): boolean {
  if (outcome.method !== 'GET' || outcome.kind === undefined) return false;
  if (outcome.failedOrRedirected || outcome.clientGone || outcome.setsCookie) return false;
  if (outcome.perRequest) return false;
  return outcome.status === (outcome.kind === 'page' ? 200 : 404);
}

/** Whether a kept page is still true at `now`. */
export function isFresh(storedAt: number, maxAgeMs: number | undefined, now: number): boolean {
  return maxAgeMs === undefined || now - storedAt < maxAgeMs;
}

/**
 * The page as it would be rendered without a nonce: the render that fills the cache streams to
 * its own visitor with the nonce on every script (script-nonce.server.ts), which the kept copy
 * must not carry. A nonce is 128 random bits: its attribute cannot occur by chance.
 */
export function withoutNonce(html: string, nonce: string): string {
  return html.replaceAll(` nonce="${nonce}"`, '');
}

/**
 * The CSP source of each inline script of a page (`'sha256-…'`), in order, without repeats: the
 * text between each `<script …>` without `src` and its `</script`, as the browser hashes it
 * (the HTML parser turns CR LF and lone CR into LF first). Outside scripts React escapes every
 * `<` in text and attributes, and Start's serialiser escapes `</script` inside its data, so the
 * scan sees only real tags (as script-nonce.server.ts's scan does).
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  let at = 0;
  for (;;) {
    const open = html.indexOf('<script', at);
    if (open === -1) break;
    const tagEnd = html.indexOf('>', open);
    if (tagEnd === -1) break;
    const close = html.indexOf('</script', tagEnd);
    if (close === -1) break;
    at = close + '</script'.length;
    const attributes = html.slice(open + '<script'.length, tagEnd);
    // `<scripts` is not a script tag; a script with `src` is a file, allowed by 'self'.
    if (!/^[\s/]|^$/.test(attributes) || /\ssrc\s*=/i.test(attributes)) continue;
    const text = html.slice(tagEnd + 1, close).replace(/\r\n?/g, '\n');
    hashes.add(`'sha256-${createHash('sha256').update(text).digest('base64')}'`);
  }
  return [...hashes];
}

/**
 * Whether `If-None-Match` names this entity tag (RFC 9110 §13.1.2: weak comparison, a list, or
 * `*`), so the answer is a 304.
 */
export function noneMatch(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const own = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || opaque(trimmed) === own;
  });
}
