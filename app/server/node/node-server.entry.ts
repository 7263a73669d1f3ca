/**
 * The built server's entry (nitro `entry`, in place of nitro's node-server entry). It turns on
 * Node's source maps first, so that failure log lines and server Sentry events name our
 * TypeScript (`app/routes/…/ssr-error.tsx:7`) instead of `.output/server/chunks/nitro/nitro.mjs`,
 * also for a bare `node .output/server/index.mjs`.
 *
 * Node reads a module's source map only when it loads the module after this call, and static
 * imports are all loaded before any line here runs: so the server itself is a dynamic import.
 * Decision: docs/decisions/0701-server-source-maps.md.
 *
 * Who serves: a cluster worker does; the first process reads the environment in the cluster's
 * primary (built beside this file, ../cluster/primary.server.ts) and either serves too
 * (WEB_CONCURRENCY=1) or starts the workers (decision 0620).
 */
import cluster from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { PRIMARY_FILE } from '../cluster/primary-file';

process.setSourceMapsEnabled(true);

// Logs whose reader went away (a closed pipe: EPIPE) are lost, and only they: left unhandled,
// the first line written after would end in an error that is itself logged to the same pipe,
// and the process spun there, a SIGTERM's drain never finishing.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

const serve = () => import('./node-server.server');
// Not awaited (nitro's build target has no top-level await); a failure to load still ends the
// process, as an unhandled rejection.
if (cluster.isWorker) {
  void serve();
} else {
  const primary: Promise<typeof import('../cluster/primary.server')> = import(
    /* @vite-ignore */ new URL(`./${PRIMARY_FILE}`, import.meta.url).href
  );
  void primary.then(({ startServer }) => {
    if (startServer(fileURLToPath(import.meta.url)) === 'serve-here') return serve();
  });
}

export default {};
