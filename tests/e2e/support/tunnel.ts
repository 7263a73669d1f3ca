/**
 * The browser tests go through the server's own tunnel, POST /monitoring, to the fake ingest
 * behind SENTRY_DSN. They run the server with a short tunnel timeout so a hanging ingest turns
 * into a 504 quickly.
 */
export const TUNNEL_TIMEOUT_MS = 1_500;
