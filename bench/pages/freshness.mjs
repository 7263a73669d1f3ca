// Whether a response says for how long it may be reused (RFC 9111 §4.2.1). Without that,
// Chromium still reuses a script with a Last-Modified for a tenth of its age ("heuristic
// freshness"): right after a build a second visit then sends nothing, and a week later every
// script is fetched again. The bench counts a second visit as free only with explicit freshness.

/** `cacheControl`, `expires`: the header values or undefined; `now`: ms since the epoch. */
export function hasExplicitFreshness(cacheControl, expires, now = Date.now()) {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((directive) => directive.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return false;
  // Not s-maxage: that one is for shared caches, a browser ignores it.
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)).find((match) => match !== null);
  if (maxAge) return Number(maxAge[1]) > 0;
  if (expires === undefined) return false;
  const at = Date.parse(expires);
  return Number.isFinite(at) && at > now;
}
