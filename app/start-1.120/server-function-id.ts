/**
 * Where Start 1.120 serves server functions over HTTP (the `server` router's base), and which
 * function a request path names. Framework-free, for the unknown-id check.
 */
export const SERVER_FUNCTION_BASE = '/_server';

/** The server function id a path names (`/_server/<id>`), or undefined for any other path. */
export function serverFunctionIdOf(path: string): string | undefined {
  const prefix = `${SERVER_FUNCTION_BASE}/`;
  if (!path.startsWith(prefix)) return undefined;
  const rest = path.slice(prefix.length);
  const end = rest.search(/[/?#]/);
  const id = end === -1 ? rest : rest.slice(0, end);
  return id === '' ? undefined : id;
}
