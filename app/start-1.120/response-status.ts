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
