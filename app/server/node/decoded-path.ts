/**
 * A request path as nitro's static handler and the router will read it: percent-decoded, so
 * that `/_build/%2Evite/…` is judged as `/_build/.vite/…`. A malformed escape stays as it came
 * (nothing decodes it into something else later).
 */
export function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
