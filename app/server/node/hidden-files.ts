/**
 * Files in the build's public folder that are for the server and tools, not for visitors:
 * vite's manifests (they map every source file to its chunk) and source maps.
 */
export function isHiddenBuildFile(path: string): boolean {
  if (!path.startsWith('/_build/')) return false;
  const decoded = safeDecode(path);
  return decoded.includes('/.vite/') || decoded.endsWith('.map');
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
