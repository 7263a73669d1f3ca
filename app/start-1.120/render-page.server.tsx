/**
 * Start's default stream handler (streaming for browsers, the whole page at once for crawlers),
 * plus what it lacks for failures: the failed page answers
 * 500, route failures are recorded once with the request, and React's SSR `onError` gives
 * render failures a digest (React puts only that digest into the HTML in production).
 */
import { PassThrough, Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import {
  defineHandlerCallback,
  StartServer,
  transformReadableStreamWithRouter,
} from '@tanstack/react-start/server';
import { isbot } from 'isbot';
import type { ReactNode } from 'react';
// react-dom/server is CommonJS in the nitro output: named imports fail at start (as in Start's own handler).
import ReactDOMServer from 'react-dom/server';
import { SERVER_FAILURE_MESSAGE } from '#app/monitoring/failure-view';
import { captureServerFailure } from '#app/server/failures/record-failure.server';
import { newNonce } from '#app/server/security/nonce.server';
import { pageContentSecurityPolicy } from '#app/server/security/security-headers';
import { siteConfig } from '#app/server/site-config.server';
import { nonceOnInjectedScripts } from '#app/start-1.120/injected-script-nonce.server';
import { scriptNonceTransform } from '#app/start-1.120/script-nonce.server';
import { type ClientWatch, watchClient } from './client-gone.server';
import { pageStatus } from './response-status';
import { settleRouteFailures } from './route-errors.server';

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
