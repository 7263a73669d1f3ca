/**
 * Files in the build's public folder that are for the server and tools, not for visitors:
 * vite's manifests (they map every source file to its chunk) and source maps. The build moves
 * maps out of `.output/public` (build/move-source-maps.ts); this is the second line of defence,
 * under the client's `/_build/` and the server routers' `/assets/` that vinxi copies there.
 */
export function isHiddenBuildFile(path: string): boolean {
  const decoded = safeDecode(path);
  if (decoded.startsWith('/assets/')) return decoded.endsWith('.map');
  if (!decoded.startsWith('/_build/')) return false;
  return decoded.includes('/.vite/') || decoded.endsWith('.map');
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
