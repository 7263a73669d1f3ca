/**
 * The digest of a component that failed while rendering on the server, as React's streaming SSR
 * leaves it in the document: the boundary it could not finish is streamed as a client-render
 * marker, `<!--$!--><template data-dgst="…"></template><!--/$-->`, the digest being what the
 * server's onError returned (the digest it logged and reported). The browser then renders that
 * part again; when it throws again, that is the same failure, already reported by the server.
 * The marker is there until React commits the client render, so the error fallback, rendering
 * in that same pass, can still read it; later client errors cannot.
 */
import { readDigest } from './failure-view';

export function serverRenderDigestIn(root: ParentNode | undefined): string | undefined {
  try {
    const marker = root?.querySelector('template[data-dgst]');
    return readDigest({ digest: marker?.getAttribute('data-dgst') ?? undefined });
  } catch {
    return undefined;
  }
}
