/**
 * Start 1.120 workaround (app/start-1.120/PATCHES.md): the page renderer, in place of Start's
 * default stream handler, with the route failures it settles and the route manifest it
 * serialises. It adds what 1.120 lacks: a 500 for a failed page, a render stopped when the
 * visitor goes away, route failures replaced by their public form before Start dehydrates them,
 * and a manifest without the empty routes. The nonce on the page's scripts is
 * ./script-nonce.server.ts. The route failures stay here: their hooks are installed when the
 * router is made and settled by the handler before it picks the status, one flow's steps. So
 * does the manifest filter, ten lines that on their own would be a fragment.
 */
import { PassThrough, Readable } from 'node:stream';
import { type ReadableStream as NodeWebStream, TransformStream } from 'node:stream/web';
import { type AnyRoute, type AnyRouter, isNotFound, isRedirect } from '@tanstack/react-router';
import {
  defineHandlerCallback,
  getEvent,
  StartServer,
  transformReadableStreamWithRouter,
} from '@tanstack/react-start/server';
import { isbot } from 'isbot';
import type { ReactNode } from 'react';
// react-dom/server is CommonJS in the nitro output: named imports fail at start (as in Start's own handler).
import ReactDOMServer from 'react-dom/server';
import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import recorderScript from '#app/monitoring/recorder/recorder.ts?inline-script';
import {
  captureServerFailure,
  type FailurePhase,
  isPublicServerError,
  type PublicServerError,
  recordFailure,
  sanitiseFailure,
} from '#app/server/failures/record-failure.server';
import {
  agentClassOf,
  keepRenderedPage,
  pageCacheOn,
  type RenderedPage,
} from '#app/server/page-cache/page-cache.server';
import { carriesPerRequestQuery, mayKeep } from '#app/server/page-cache/page-cache-policy';
import { newNonce, pageContentSecurityPolicy } from '#app/server/security/security-headers.server';
import { siteConfig } from '#app/server/site-config.server';
import { processShared } from '#app/start-1.120/process-shared.server';
import {
  type InjectingRouter,
  nonceOnInjectedScripts,
  renderingStateOf,
  scriptNonceTransform,
} from './script-nonce.server';

declare module '#app/start-1.120/process-shared.server' {
  interface ProcessState {
    'route-failure-hooks': {
      installed: WeakSet<AnyRoute>;
      serialPhaseFailures: WeakSet<PublicServerError>;
    };
  }
}

/**
 * Start's default stream handler (streaming for browsers, the whole page at once for crawlers),
 * plus what it lacks for failures: the failed page answers
 * 500, route failures are recorded once with the request, and React's SSR `onError` gives
 * render failures a digest (React puts only that digest into the HTML in production).
 */
export const failureAwareStreamHandler = defineHandlerCallback(
  async ({ request, router, responseHeaders }) => {
    const { failed } = settleRouteFailures(router, request);
    const renderFailure = (error: unknown) => {
      const url = new URL(request.url);
      const matches = router.state.matches;
      return captureServerFailure(error, {
        phase: 'render',
        route: matches[matches.length - 1]?.routeId ?? url.pathname,
        method: request.method,
        url: url.pathname + url.search,
        incoming: request,
      });
    };

    // The built app's pages allow only inline scripts with this response's nonce. Not under
    // `vinxi dev`, whose client injects styles and scripts of its own (decision 0602).
    const nonce = import.meta.env.DEV ? undefined : newNonce();
    if (nonce) nonceOnInjectedScripts(router, nonce);
    recorderFirstInHead(router, nonce);

    let renderFailed = false;
    // Crawlers get the finished page in one piece (as Start's own handler does): no fallbacks
    // waiting for streamed-in content that a crawler without JavaScript would never see.
    const waitForAll = isbot(request.headers.get('user-agent'));
    const client = watchClient();
    const rendered = await renderPage(
      <StartServer router={router} />,
      { client, waitForAll, nonce },
      (error) => {
        // A visitor who went away is not a failure of the page.
        if (client.gone()) return undefined;
        renderFailed = true;
        return renderFailure(error).digest;
      },
    );
    if ('error' in rendered) {
      // Nobody is waiting for this page: nothing failed, nothing to answer.
      if (client.gone()) return new Response(null, { status: 204, headers: responseHeaders });
      // The shell itself failed: no document to stream, answer a minimal one.
      const { digest } = renderFailure(rendered.error);
      responseHeaders.set('Content-Type', 'text/html; charset=UTF-8');
      return new Response(shellFailurePage(digest), { status: 500, headers: responseHeaders });
    }

    const { statusCode, redirect } = router.state;
    const spotlightUrl = siteConfig().monitoring.spotlight;
    let body = transformReadableStreamWithRouter(router, rendered.stream);
    if (nonce) {
      responseHeaders.set(
        'Content-Security-Policy',
        // The page may reach what its config names: the Spotlight sidecar, when that is on.
        pageContentSecurityPolicy({ nonce }, spotlightUrl),
      );
    }
    // A render failure inside a Suspense boundary is known by the time the shell is ready
    // (React streams a client-render marker with its digest); later ones cannot change it.
    const status = pageStatus({
      routerStatus: statusCode,
      redirected: !!redirect,
      failed: failed || renderFailed,
    });
    const offer = pageCacheOffer(router, request);
    if (offer) {
      // Judged once the whole page has passed: a failure late in the stream is not kept either.
      body = withWholePage(body, (html) => {
        const keep = mayKeep({
          method: request.method,
          status,
          kind: offer.kind,
          failedOrRedirected: failed || renderFailed || !!redirect,
          clientGone: client.gone(),
          setsCookie: responseHeaders.has('set-cookie'),
          perRequest: offer.perRequest,
        });
        if (!keep) return;
        void keepRenderedPage({ ...offer, status, html, nonce, spotlightUrl });
      });
    }
    return new Response(body as unknown as BodyInit, { status, headers: responseHeaders });
  },
);

/**
 * The recorder (app/monitoring/recorder/recorder.ts) as the first element of the document's head,
 * ahead of Start's own scripts, so that it catches what fails from there on (decision 0510). It
 * enters with the router's head scripts, which Start's stream transform writes right after
 * `<head>`, rather than through React, which hoisted the head's tags above it and sent its
 * 6.8 KB through React's writer, the nonce rewrite and Start's scan of the stream (decision
 * 1320). React 19 skips an element it did not render in `<head>` when it hydrates. Call before
 * Start's transform starts reading the injected HTML, after `nonceOnInjectedScripts`: the tag
 * carries its nonce already.
 */
export function recorderFirstInHead(router: InjectingRouter, nonce: string | undefined): void {
  const ssr = renderingStateOf(router);
  const attributes = nonce ? ` nonce="${nonce}"` : '';
  // First in the list: Start buffers the pieces in the order they settle, and this one has.
  ssr.injectedHtml.unshift(
    Promise.resolve(`<script${attributes} id="monitoring-recorder">${recorderScript}</script>`),
  );
}

/** A render the page cache may keep, once it is whole and has not failed. */
type PageCacheOffer = Pick<RenderedPage, 'kind' | 'url' | 'agent' | 'policy'> & {
  /** The request carries a query key a route acts on per request: rendered, never kept. */
  perRequest: boolean;
};

/**
 * What the page cache (app/server/page-cache/) may keep of this render, read off the router's
 * matches: an opted-in route's page (`staticData.pageCache`) or the not-found page (the root's
 * `staticData.notFoundPageCache`), with the query keys its routes act on per request. Undefined
 * when the cache is off or the page did not opt in.
 */
function pageCacheOffer(router: AnyRouter, request: Request): PageCacheOffer | undefined {
  if (!pageCacheOn()) return undefined;
  const matches = router.state.matches as LoadedMatch[];
  const staticData = (routeId: string) =>
    (router.looseRoutesById[routeId] as AnyRoute | undefined)?.options.staticData ?? {};
  const root = router.routeTree as AnyRoute;
  const perRequestQuery = [
    ...new Set(
      [root.id, ...matches.map((match) => match.routeId)].flatMap(
        (routeId) => staticData(routeId).perRequestQuery ?? [],
      ),
    ),
  ];
  const notFound = router.state.statusCode === 404;
  const leaf = matches[matches.length - 1];
  // Only a path no route matched is the not-found page everyone gets: a route that matched and
  // then said not-found (an unknown id, a page past the last) decided it from the request.
  if (notFound && leaf && leaf.routeId !== root.id) return undefined;
  const optIn = notFound
    ? staticData(root.id).notFoundPageCache
    : leaf && staticData(leaf.routeId).pageCache;
  // A response no cache may store (the inbox's `no-store`, set by the server's entry) never is.
  if (!optIn || getEvent().node.res.getHeader('cache-control') === 'no-store') return undefined;
  // The URL as the server's entry saw it, which keys the cache's look-ups: the same bytes.
  const url = getEvent().node.req.url ?? '/';
  const query = url.indexOf('?');
  return {
    kind: notFound ? 'not-found' : 'page',
    url,
    agent: agentClassOf(request.headers.get('user-agent')),
    policy: { ...optIn, perRequestQuery },
    perRequest: carriesPerRequestQuery(query === -1 ? '' : url.slice(query + 1), perRequestQuery),
  };
}

/** The page's stream as it is, and its whole text to `done` once it has all passed. */
function withWholePage(
  body: NodeWebStream<Uint8Array>,
  done: (html: string) => void,
): NodeWebStream<Uint8Array> {
  const chunks: Buffer[] = [];
  return body.pipeThrough(
    new TransformStream<Uint8Array | string, Uint8Array>({
      transform(chunk, controller) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        chunks.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        controller.enqueue(bytes);
      },
      flush() {
        done(Buffer.concat(chunks).toString());
      },
    }),
  );
}

/**
 * Renders until the shell is ready (then streams the rest), or with `waitForAll` until
 * everything is, or until the shell has failed. With a nonce, React's stream puts it on every
 * script as it passes (`scriptNonceTransform`).
 */
function renderPage(
  app: ReactNode,
  {
    client,
    waitForAll,
    nonce,
  }: { client: ClientWatch; waitForAll: boolean; nonce: string | undefined },
  onError: (error: unknown) => string | undefined,
): Promise<{ stream: NodeWebStream<Uint8Array> } | { error: unknown }> {
  return new Promise((settle) => {
    // React writes into a Node stream; the web stream Start transforms is read from it.
    const html = nonce ? scriptNonceTransform(nonce) : new PassThrough();
    const start = () => {
      pipeable.pipe(html);
      settle({ stream: Readable.toWeb(html) as NodeWebStream<Uint8Array> });
    };
    const pipeable = ReactDOMServer.renderToPipeableStream(app, {
      ...(waitForAll ? { onAllReady: start } : { onShellReady: start }),
      onShellError: (error) => settle({ error }),
      onError: (error) => onError(error),
    });
    client.onGone(() => pipeable.abort());
  });
}

function shellFailurePage(digest: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Application error</title></head><body><main role="alert"><p>${SERVER_FAILURE_MESSAGE}</p><p>Digest: ${digest}</p><p><a href="/">Go to the home page</a></p></main></body></html>`;
}

/** Whether the visitor went away before the response was finished, and a hook for when they do. */
export interface ClientWatch {
  gone(): boolean;
  onGone(listener: () => void): void;
}

/**
 * Watches the Node response for a visitor who leaves before it is finished. Start 1.120 builds
 * the handler's Request without a signal (h3's toWebRequest), so `request.signal` never aborts:
 * this watches the response instead, so that rendering stops for nobody. A plain listener, not
 * an AbortController: creating and aborting one per page showed in the pages' CPU profile.
 */
export function watchClient(): ClientWatch {
  const res = getEvent().node.res;
  let gone = false;
  const listeners: Array<() => void> = [];
  res.once('close', () => {
    if (res.writableFinished) return;
    gone = true;
    for (const listener of listeners) listener();
  });
  return {
    gone: () => gone,
    onGone: (listener) => {
      if (gone) listener();
      else listeners.push(listener);
    },
  };
}

/** What decides a page's HTTP status, as plain data (read off the router's state). */
export interface PageOutcome {
  /** The router's own status: redirect status, 404 for not-found, else 200. */
  routerStatus: number;
  redirected: boolean;
  /** Some match ended in an error (loader, beforeLoad, params, search). */
  failed: boolean;
}

/**
 * Start 1.120 answers 200 when a loader throws; a failed page is a 500. Redirects keep their
 * own status and not-found its 404: control flow, not failures.
 */
export function pageStatus({ routerStatus, redirected, failed }: PageOutcome): number {
  if (redirected) return routerStatus;
  if (failed) return 500;
  return routerStatus;
}

interface RouteEntry {
  preloads?: readonly unknown[];
  assets?: readonly unknown[];
}

/**
 * The route manifest Start 1.120 serialises into every page (`__TSR_SSR__.dehydrated`), without
 * the routes that have nothing in it. Start lists every route, most with neither preloads nor
 * assets (their chunks load with `import()`), and each page spends its time escaping them: a
 * route missing from the manifest is read as one without preloads or assets, on the server
 * (`HeadContent`, `Scripts`) and in the browser alike. See docs/decisions/0850-*.md.
 */
export function withoutEmptyRoutes<M extends { routes: Record<string, RouteEntry> }>(
  manifest: M,
): M {
  const routes = Object.fromEntries(
    Object.entries(manifest.routes).filter(
      ([, route]) => (route.preloads?.length ?? 0) > 0 || (route.assets?.length ?? 0) > 0,
    ),
  );
  return { ...manifest, routes };
}

// Route failures on the server (beforeLoad, loader, params, search): replaced by their public
// form before Start dehydrates them, and recorded with the request once the load is over.

/** The failure phase each of the router's own error codes names; any other error is a loader's. */
const PHASE_OF_ROUTER_CODE: Record<string, FailurePhase> = {
  BEFORE_LOAD: 'beforeLoad',
  PARSE_PARAMS: 'params',
  VALIDATE_SEARCH: 'search',
};

const { installed, serialPhaseFailures } = processShared('route-failure-hooks', () => ({
  installed: new WeakSet<AnyRoute>(),
  /** Failures from beforeLoad/params/search: Start never dehydrates these matches itself. */
  serialPhaseFailures: new WeakSet<PublicServerError>(),
}));

/**
 * Start calls a route's `onError` with every loader or beforeLoad error (never redirects or
 * not-found) before storing it on the match, and stores whatever `onError` throws instead.
 * Throwing the public error there is the one hook that runs before the match's data is
 * written into the HTML. Routes are module singletons: install once per route.
 */
export function sanitiseRouteFailures(router: AnyRouter): void {
  for (const route of Object.values(router.looseRoutesById) as AnyRoute[]) {
    if (installed.has(route)) continue;
    installed.add(route);
    const options = route.options as { onError?: (error: unknown) => void };
    const own = options.onError;
    options.onError = (error: unknown) => {
      let failure = error;
      try {
        own?.(error);
      } catch (thrown) {
        // The route's own onError may redirect; Start handles that. Anything else replaces it.
        if (isRedirect(thrown) || isNotFound(thrown)) throw thrown;
        failure = thrown;
      }
      const routerCode = (error as { routerCode?: unknown } | null)?.routerCode;
      const phase =
        (typeof routerCode === 'string' && PHASE_OF_ROUTER_CODE[routerCode]) || 'loader';
      const publicError = sanitiseFailure(failure, phase);
      if (phase !== 'loader') serialPhaseFailures.add(publicError);
      throw publicError;
    };
  }
}

interface LoadedMatch {
  id: string;
  routeId: string;
  status: string;
  error?: unknown;
}

/**
 * After `router.load()`: records each failed match once (log line + report) and makes sure the
 * first match that failed before its loader is dehydrated too. Start only dehydrates matches
 * whose loader ran, so a throwing root `beforeLoad` left the browser with no error at all:
 * it hydrated the child page over the server's error page (React #418).
 */
export function settleRouteFailures(
  router: AnyRouter,
  request: { method: string; url: string; headers: Iterable<[string, string]> },
): { failed: boolean } {
  const matches = router.state.matches as LoadedMatch[];
  let failed = false;
  let settledSerial = false;
  for (const match of matches) {
    if (match.status !== 'error') continue;
    failed = true;
    if (!isPublicServerError(match.error)) continue;
    const url = new URL(request.url);
    recordFailure(match.error, {
      route: match.routeId,
      method: request.method,
      url: url.pathname + url.search,
      incoming: request,
    });
    if (!settledSerial && serialPhaseFailures.has(match.error)) {
      settledSerial = true;
      router.serverSsr?.onMatchSettled({ router, match: router.getMatch(match.id) as never });
    }
  }
  return { failed };
}
