/**
 * Start 1.120 workaround (app/start-1.120/PATCHES.md): the page renderer, in place of Start's
 * default stream handler. It adds what 1.120 lacks: a 500 for a failed page, a render stopped
 * when the visitor goes away, and the CSP nonce on the scripts the router injects.
 */
import { PassThrough, Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
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
import { captureServerFailure } from '#app/server/failures/record-failure.server';
import { newNonce, pageContentSecurityPolicy } from '#app/server/security/security-headers.server';
import { siteConfig } from '#app/server/site-config.server';
import { settleRouteFailures } from './route-errors.server';
import { scriptNonceTransform, withScriptNonce } from './script-nonce.server';

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
      });
    };

    // The built app's pages allow only inline scripts with this response's nonce. Not under
    // `vinxi dev`, whose client injects styles and scripts of its own (decision 0602).
    const nonce = import.meta.env.DEV ? undefined : newNonce();
    if (nonce) nonceOnInjectedScripts(router, nonce);

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
    const body = transformReadableStreamWithRouter(router, rendered.stream);
    if (nonce) {
      responseHeaders.set(
        'Content-Security-Policy',
        // The page may reach what its config names: the Spotlight sidecar, when that is on.
        pageContentSecurityPolicy(nonce, siteConfig().monitoring.spotlight),
      );
    }
    return new Response(body as unknown as BodyInit, {
      // A render failure inside a Suspense boundary is known by the time the shell is ready
      // (React streams a client-render marker with its digest); later ones cannot change it.
      status: pageStatus({
        routerStatus: statusCode,
        redirected: !!redirect,
        failed: failed || renderFailed,
      }),
      headers: responseHeaders,
    });
  },
);

/**
 * Renders until the shell is ready (then streams the rest), or with `waitForAll` until
 * everything is, or until the shell has failed. With a nonce, React's stream puts it on every
 * script as it passes (script-nonce.server.ts).
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

/**
 * The scripts Start's router injects into a page (its bootstrap, each match's state, the
 * dehydrated router, streamed values) get the response's CSP nonce where they are made, not
 * by rewriting the finished stream: Start 1.120 merges them into React's stream in a web
 * stream of its own, and a rewriting stage after that cost a seventh of a page's CPU time
 * (decision 0850). React's part is rewritten as it streams (script-nonce.server.ts).
 */
/** What Start 1.120 keeps on the router while it renders a page (start-server-core's ssr-server). */
export interface InjectingRouter {
  serverSsr?: {
    injectedHtml: Array<Promise<string>>;
    injectHtml: (getHtml: () => string | Promise<string>) => Promise<void>;
  };
}

/**
 * Call before Start's stream transform starts reading `injectedHtml`: what is injected already
 * is rewritten in place, and what is injected from now on, as it is made.
 */
export function nonceOnInjectedScripts(router: InjectingRouter, nonce: string): void {
  const ssr = router.serverSsr;
  if (!ssr) throw new Error('The router has no server-side rendering state to inject into');
  ssr.injectedHtml = ssr.injectedHtml.map((html) =>
    html.then((piece) => withScriptNonce(piece, nonce)),
  );
  const inject = ssr.injectHtml;
  ssr.injectHtml = (getHtml) => inject(async () => withScriptNonce(await getHtml(), nonce));
}
