// Where `npm run dev` listens, and what it says about it: pure, shared by scripts/dev.mjs (the
// listening socket) and app.config.ts (vite's HMR sockets). Loopback unless HOST says
// otherwise: the dev server shows real errors and an open /errors (decision 0960).

/** Addresses that mean "every interface". */
const EVERY_ADDRESS = new Set(['0.0.0.0', '::']);
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export const DEFAULT_DEV_HOST = '127.0.0.1';
export const DEFAULT_DEV_PORT = 3000;

/**
 * @param {Record<string, string | undefined>} env
 * @returns {{ host: string; port: number }}
 */
export function devAddress(env) {
  const host = env.HOST?.trim() || DEFAULT_DEV_HOST;
  const port = env.PORT?.trim() ? Number(env.PORT) : DEFAULT_DEV_PORT;
  return { host, port };
}

/**
 * The host vite's HMR sockets listen on (and the browser connects to): the dev server's own,
 * except "every address", which a browser cannot connect to: then vite's default (every
 * address, the page's host name in the browser).
 * @param {string} host
 * @returns {string | undefined}
 */
export function hmrHost(host) {
  return EVERY_ADDRESS.has(host) ? undefined : host;
}

/**
 * The line that replaces listhen's "Network: use --host to expose" (vinxi's `--host` does not
 * change where it listens once HOST is set, and in a container listhen listened on every
 * address while printing it).
 * @param {{ host: string; port: number }} address
 */
export function exposureLine({ host, port }) {
  if (LOOPBACK.has(host)) {
    return `  ➜ Network:  not exposed: listening on ${host} only (set HOST=0.0.0.0 to open it to your network; /errors is open to whoever can reach it)`;
  }
  const where = EVERY_ADDRESS.has(host) ? 'every address' : host;
  return `  ➜ Network:  exposed on ${where}, port ${port}: whoever can reach this machine sees the real errors and /errors`;
}

/**
 * What `npm start` prints for a port in use (`listenAndAnnounce` in
 * app/server/startup.server.ts): the same words in development.
 * @param {{ host: string; port: number }} address
 */
export function portInUseMessage({ host, port }) {
  return `[server] port ${port} is already in use on ${host}: stop the other server, or set PORT to a free port (PORT=0 picks one)`;
}
