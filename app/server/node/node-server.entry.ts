/**
 * The built server's entry (nitro `entry`, in place of nitro's node-server entry). It turns on
 * Node's source maps first, so that failure log lines and server Sentry events name our
 * TypeScript (`app/routes/…/ssr-error.tsx:7`) instead of `.output/server/chunks/nitro/nitro.mjs`,
 * also for a bare `node .output/server/index.mjs`.
 *
 * Node reads a module's source map only when it loads the module after this call, and static
 * imports are all loaded before any line here runs: so the server itself is a dynamic import.
 * Decision: docs/decisions/0701-server-source-maps.md.
 */
process.setSourceMapsEnabled(true);
// Not awaited (nitro's build target has no top-level await); a failure to load still ends the
// process, as an unhandled rejection.
void import('./node-server.server');

export default {};
