/**
 * The built server's entry (nitro `entry`, in place of nitro's node-server entry). It turns on
 * Node's source maps first, so that failure log lines and server Sentry events name our
 * TypeScript (`app/routes/…/ssr-error.tsx:7`) instead of nitro's bundled chunk, also when node
 * runs the built entry directly.
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
import { readdirSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

process.setSourceMapsEnabled(true);

// Production unless told otherwise, for the libraries too, before any of them loads: the
// server's config already reads an unset NODE_ENV as production (env.server.ts), but React
// reads `process.env.NODE_ENV` itself, and its development server renderer writes a failed
// render's message and stack into the page. Workers inherit it from the primary. Through a
// variable: the build replaces `process.env.NODE_ENV` with its own value wherever it is spelled.
const environment = process.env;
environment.NODE_ENV ??= 'production';

// Logs whose reader went away (a closed pipe: EPIPE) are lost, and only they: left unhandled,
// the first line written after would end in an error that is itself logged to the same pipe,
// and the process spun there, a SIGTERM's drain never finishing.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

// This is the built server entry; the chunks and their maps are beside it. Decoded once the
// server's module has run, before the event loop takes its first connection.
const serve = () =>
  import('./node-server.server').then(() =>
    decodeLoadedSourceMaps(fileURLToPath(new URL('.', import.meta.url))),
  );
// Not awaited (nitro's build target has no top-level await); a failure to load still ends the
// process, as an unhandled rejection.
if (cluster.isWorker) {
  void serve();
} else {
  // Built beside this entry by build/server-side-files.ts under this name, which it spells the
  // same: a name, not an import, because a module the server's chunks share would be bundled
  // into them, and this entry would load them (and nitro's app) with it.
  const primary: Promise<typeof import('../cluster/primary.server')> = import(
    /* @vite-ignore */ new URL('./cluster-primary.mjs', import.meta.url).href
  );
  void primary.then(({ startServer }) => {
    if (startServer(fileURLToPath(import.meta.url)) === 'serve-here') return serve();
  });
}

export default {};

/**
 * Decodes the source maps of the server's loaded chunks now, before the server listens.
 * Node decodes a chunk's map the first time a stack passes through it: for nitro's main chunk
 * (a 1.3 MB map) that took 155–235 ms, blocking the event loop at the first failure after a
 * start, when the failure's own report and every visitor were waiting. Here it costs the same
 * once, while nobody is waiting (docs/decisions/0701-server-source-maps.md). Returns the
 * number of maps decoded: one per chunk under `serverDir` that is loaded and has a map.
 */
function decodeLoadedSourceMaps(serverDir: string): number {
  let decoded = 0;
  // The entry and chunks/: node_modules beside them is copied as it is, with no maps.
  for (const file of [join(serverDir, 'index.mjs'), ...chunkFiles(join(serverDir, 'chunks'))]) {
    // Undefined for a chunk not loaded yet (its map is decoded at its first stack) or with no map.
    if (findSourceMap(pathToFileURL(file).href) !== undefined) decoded++;
  }
  return decoded;
}

function chunkFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.mjs'))
      files.push(join(entry.parentPath, entry.name));
  }
  return files;
}
