/**
 * What a failure looks like to the user, on both sides: what the error fallback may say about an
 * error (the generic message), and the digest the server rendered into the page, read back in the
 * browser. Shared by server and browser, framework-free. A server-side failure reaches the
 * browser as an error carrying only a `digest` (see app/server/failures/record-failure.server.ts);
 * anything else is a client-side failure.
 */

export const CLIENT_FAILURE_MESSAGE =
  'Application error: a client-side exception has occurred (see the browser console for more information).';
export const SERVER_FAILURE_MESSAGE =
  'Application error: a server-side exception has occurred (see the server logs for more information).';

/** Digests are short lowercase hex strings; anything else is not shown. */
const DIGEST = /^[0-9a-f]{6,32}$/;

export interface FailureView {
  side: 'client' | 'server';
  message: string;
  digest?: string;
}

/**
 * Never throws, whatever was thrown (a string, null, an object without message, a Proxy…).
 * `serverRenderDigest`: the digest of a server render failure that the browser is rendering
 * again (see `serverRenderDigestIn` below); an error without a digest of its own is that failure.
 */
export function describeFailure(error: unknown, serverRenderDigest?: string): FailureView {
  const digest = safely(() => readDigest(error)) ?? serverRenderDigest;
  const view: FailureView = digest
    ? { side: 'server', message: SERVER_FAILURE_MESSAGE, digest }
    : { side: 'client', message: CLIENT_FAILURE_MESSAGE };
  return view;
}

/** The digest an error carries (a server failure's public form), if it is a well-formed one. */
export function readDigest(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const digest = (error as { digest?: unknown }).digest;
  return typeof digest === 'string' && DIGEST.test(digest) ? digest : undefined;
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * The digest of a component that failed while rendering on the server, as React's streaming SSR
 * leaves it in the document: the boundary it could not finish is streamed as a client-render
 * marker, `<!--$!--><template data-dgst="…"></template><!--/$-->`, the digest being what the
 * server's onError returned (the digest it logged and reported). The browser then renders that
 * part again; when it throws again, that is the same failure, already reported by the server.
 * The marker is there until React commits the client render, so the error fallback, rendering
 * in that same pass, can still read it; later client errors cannot.
 */
export function serverRenderDigestIn(root: ParentNode | undefined): string | undefined {
  try {
    const marker = root?.querySelector('template[data-dgst]');
    return readDigest({ digest: marker?.getAttribute('data-dgst') ?? undefined });
  } catch {
    return undefined;
  }
}
