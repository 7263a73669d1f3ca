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
