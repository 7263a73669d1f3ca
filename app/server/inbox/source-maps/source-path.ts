/**
 * How an original source's path is shown: project-relative for our own files
 * ("app/routes/sentry-example-page/index.tsx"), from the package name on for libraries
 * ("react-dom/cjs/react-dom-client.production.js"). Bundlers write sources relative to the map
 * ("../../app/…"), with a scheme ("webpack://app/./app/…", "vite:"), or absolute from the build
 * machine ("/home/ci/project/app/…"); the reader wants the same short path for all of them.
 */

export interface ShownSource {
  path: string;
  /** Under node_modules, a bundler's virtual module, or on the map's ignore list. */
  library: boolean;
}

/** Relay's limit for frame paths: a longer one is cut, not shown whole. */
const MAX_PATH = 256;
const SCHEME = /^[a-z][a-z0-9+.-]*:(?:\/\/[^/]*)?/i;
const NODE_MODULES = '/node_modules/';
/** Rollup's virtual modules start with a NUL byte ("\0commonjsHelpers.js"); Vite's with "vite/". */
const VIRTUAL = /^(?:\0|vite\/|__vite|virtual:)/;
/**
 * Bundlers keep a module id's query in `sources`: the router's code splitting maps each route's
 * component to "…/index.tsx?tsr-split=component", Vite's asset imports to "…?url". The file is
 * the same one; the query is not part of its path.
 */
const QUERY = /[?#].*$/;

/**
 * `projectRoot` is the absolute directory the app was built in, when known: an absolute source
 * under it is shown relative to it. Without it an absolute path is shown from its first
 * `app/` folder, this project's only source folder.
 */
export function shownSource(
  source: string,
  options: { projectRoot?: string; ignored?: boolean } = {},
): ShownSource {
  if (VIRTUAL.test(source)) return shown(source.replace(/^\0/, ''), true);
  let path = source.replace(/\\/g, '/');
  const root = options.projectRoot?.replace(/\\/g, '/').replace(/\/?$/, '/');
  if (root && path.startsWith(root)) path = path.slice(root.length);
  path = `/${path.replace(SCHEME, '').replace(QUERY, '')}`;
  const modules = path.lastIndexOf(NODE_MODULES);
  if (modules !== -1) return shown(path.slice(modules + NODE_MODULES.length), true);
  path = normalised(path);
  const appFolder = path.indexOf('/app/');
  if (appFolder > 0) path = path.slice(appFolder);
  return shown(path.replace(/^\/+/, ''), options.ignored === true);
}

/** "." and ".." resolved without ever climbing above the start: what is left is shown. */
function normalised(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

function shown(path: string, library: boolean): ShownSource {
  return { path: path.length > MAX_PATH ? `${path.slice(0, MAX_PATH)}…` : path, library };
}
