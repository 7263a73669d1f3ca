/**
 * The scripts Start's router injects into a page (its bootstrap, each match's state, the
 * dehydrated router, streamed values) get the response's CSP nonce where they are made, not
 * by rewriting the finished stream: Start 1.120 merges them into React's stream in a web
 * stream of its own, and a rewriting stage after that cost a seventh of a page's CPU time
 * (decision 0850). React's part is rewritten as it streams (script-nonce.server.ts).
 */
import { withScriptNonce } from './script-nonce.server';

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
