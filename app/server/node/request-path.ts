/**
 * Paths the server refuses before any route sees them. Pure.
 *
 * - A malformed percent-escape (`/errors/%`) is the client's mistake: 400. The router used to
 *   answer it 200 with an empty document.
 * - A path that is not in its one canonical form (`//errors`, `/./errors`, `/a/../errors`, also
 *   spelled with `%2F` or `%2E`) is 404. Such spellings reach the same route under a path that
 *   path-based policy (the inbox's `no-store`) does not recognise; no browser sends them for a
 *   link of ours, and redirecting `//host` to anything is how open redirects start.
 * - Control characters (`%00`, `%0A`) are 400: they belong in no path of ours, and a `%0A` in a
 *   logged path forges log lines.
 */

export interface PathRefusal {
  status: 400 | 404;
  reason: string;
}

export function pathRefusal(path: string): PathRefusal | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return { status: 400, reason: 'Bad request: malformed percent-encoding in the path' };
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  if (/[\u0000-\u001f\u007f]/.test(decoded)) {
    return { status: 400, reason: 'Bad request: control character in the path' };
  }
  if (!decoded.startsWith('/') || /\/\/|\/\.\.?(?:\/|$)/.test(decoded)) {
    return { status: 404, reason: 'Not found' };
  }
  return undefined;
}
