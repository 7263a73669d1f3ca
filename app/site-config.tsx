/**
 * The site config, in one module for both sides: the schema of what every page needs from the
 * server (the browser's monitoring slice, the optional pages), how the server derives that slice,
 * the `<script id="site-config">` the root renders it into, the hook that reads it back
 * (decision 0800), the optional pages' guards, and the document's title from the site's name and
 * the router's matches. Computed once on the server by app/server/site-config.server.ts.
 */
import { notFound, useRouter } from '@tanstack/react-router';
import * as v from 'valibot';
import { isDsn, parseDsn, tunnelUrlOf } from './monitoring/dsn';

/**
 * The small public slice of the server's configuration that the browser needs to report
 * errors. It reaches the page in the site config (app/site-config.tsx) at request time, never
 * baked in at build time, so a changed SENTRY_DSN takes effect on restart.
 */
export const PublicConfigSchema = v.object({
  /** The DSN the browser SDK reports to (SENTRY_DSN, or the local inbox DSN). */
  dsn: v.string(),
  /** The same-origin tunnel URL for that DSN. */
  tunnel: v.string(),
  environment: v.string(),
  release: v.string(),
  tracesSampleRate: v.pipe(v.number(), v.minValue(0), v.maxValue(1)),
  /** The Spotlight sidecar that gets a copy of each envelope: only in development, when on. */
  spotlight: v.optional(v.string()),
});

export type PublicConfig = v.InferOutput<typeof PublicConfigSchema>;

export interface PublicConfigSource {
  /** The browser DSN: SENTRY_DSN, or the local inbox DSN without it. */
  dsn: string;
  environment: string;
  release: string;
  tracesSampleRate: number;
  /** SENTRY_SPOTLIGHT's sidecar URL, in development only. */
  spotlight?: string;
}

/**
 * Pure: what the browser gets to know. Only these five values ever leave the server, and the
 * Spotlight sidecar's URL when it is on (development only).
 */
export function publicConfigOf(source: PublicConfigSource): PublicConfig {
  const parsed = parseDsn(source.dsn);
  if (!isDsn(parsed)) throw new Error(`Browser DSN is not a Sentry DSN (${parsed.error})`);
  return {
    dsn: source.dsn,
    tunnel: tunnelUrlOf(parsed),
    environment: source.environment,
    release: source.release,
    tracesSampleRate: source.tracesSampleRate,
    ...(source.spotlight ? { spotlight: source.spotlight } : {}),
  };
}

/**
 * What every page needs to know about this server, fixed until it restarts: the browser's
 * monitoring config and which optional pages exist. The server computes it once
 * (app/server/site-config.server.ts) and gives it to each request's router as context; the
 * root renders it into the document as inert JSON, and app/client.tsx reads it back before
 * creating the browser's router, so both sides render with the same context.
 */
export const SiteConfigSchema = v.object({
  monitoring: PublicConfigSchema,
  /** The navigation links only to pages that exist. */
  links: v.object({
    /** The error inbox: served in local inbox mode. */
    errorInbox: v.boolean(),
    /** /sentry-example-page: served when example routes are on. */
    examplePage: v.boolean(),
  }),
});

export type SiteConfig = v.InferOutput<typeof SiteConfigSchema>;

/** The router context of every request; `site` is missing only from a page that lacks it. */
export interface RouterContext {
  site: SiteConfig | undefined;
}

/** The id of the `<script type="application/json">` element that carries the config. */
export const SITE_CONFIG_ELEMENT_ID = 'site-config';

/**
 * JSON safe to put inside a `<script>` element: `<` is escaped so that no value can close
 * the element (`</script>`) or open a comment; JSON.parse reads `\u003c` back as `<`.
 */
export function serializeForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** Reads the config text of the document; undefined when it is missing or malformed. */
export function parseSiteConfig(text: string | null | undefined): SiteConfig | undefined {
  if (!text) return undefined;
  try {
    const result = v.safeParse(SiteConfigSchema, JSON.parse(text));
    return result.success ? result.output : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The site config, read from the router's own context rather than a match's: the root's error
 * and not-found pages render too when the root's beforeLoad threw, and still have it.
 */
export function useSiteConfig(): SiteConfig | undefined {
  return useRouter().options.context.site;
}

/**
 * The site config as inert JSON in the document; app/client.tsx reads it before creating the
 * browser's router. JSON in a script element is not HTML-escaped, so `<` is escaped instead.
 */
export function SiteConfigScript({ config }: { config: SiteConfig | undefined }) {
  if (!config) return null;
  return (
    <script
      id={SITE_CONFIG_ELEMENT_ID}
      type="application/json"
      // biome-ignore lint/security/noDangerouslySetInnerHtml: serializeForScript escapes `<`.
      dangerouslySetInnerHTML={{ __html: serializeForScript(config) }}
    />
  );
}

/**
 * The /errors pages exist in local inbox mode only; with SENTRY_DSN each answers the site's
 * 404 page before anything reads the inbox or validates the URL. From each page's loader, as
 * `examplePagesOnly` below explains.
 */
export function inboxPagesOnly({ context }: { context: RouterContext }): void {
  if (!context.site?.links.errorInbox) throw notFound();
}

/**
 * The example pages exist in development, and in production only with ENABLE_EXAMPLE_ROUTES;
 * otherwise each answers the site's 404 page. Called from each page's loader, not from a shared
 * `beforeLoad`: router-core marks every ancestor of a route whose beforeLoad throws `notFound()`
 * as not found, up to the root, and the root's not-found page then replaces the whole document
 * (no head, styles or navigation). A loader's `notFound()` stays on its own route.
 */
export function examplePagesOnly({ context }: { context: RouterContext }): void {
  if (!context.site?.links.examplePage) throw notFound();
}

/**
 * The document's title, from the router's matches: a page that is not there says so in the
 * tab and the history, not just the site's name. Pure, shared by server and browser.
 */

export const SITE_TITLE = 'Start Monitoring';
export const NOT_FOUND_TITLE = `Page not found · ${SITE_TITLE}`;

/** What the root route's head needs to know of a match. */
export interface TitleMatch {
  status: string;
  /** The router's mark on the route that shows the not-found page for an unknown path. */
  globalNotFound?: boolean;
}

function isNotFound(match: TitleMatch): boolean {
  return match.status === 'notFound' || match.globalNotFound === true;
}

/** What a route's `head` is given, as far as the title goes. */
export interface TitleContext {
  /** Every match of the load, as they were when it began. */
  matches: readonly TitleMatch[];
  /** This route's match as it is now: a loader's notFound() shows only here. */
  match: TitleMatch;
}

/**
 * A page's title, `<name> · Start Monitoring`, or the site's name alone (the root route). The
 * deepest route's title wins (HeadContent), and for an unknown path below a page
 * (`/about/deeper`) the router marks the root, not the page: every route asks all matches.
 */
export function pageTitle({ matches, match }: TitleContext, name?: string): string {
  if (isNotFound(match) || matches.some(isNotFound)) return NOT_FOUND_TITLE;
  return name === undefined ? SITE_TITLE : `${name} · ${SITE_TITLE}`;
}
