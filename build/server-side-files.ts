/**
 * Files beside the built server (`.output/server/`) that run apart from its chunks, each one
 * bundled whole:
 * - the inbox's ingest thread: a worker thread is started from a file, not imported;
 * - the cluster's primary: the server's chunks set up nitro's app as they load, which the
 *   primary, serving nothing, must not.
 * nitro bundles what the server imports; these are bundled by esbuild (vite's own) with our code
 * and @sentry/core inlined. better-sqlite3 stays external, resolved from the server's
 * node_modules, where nitro puts it because the server reads the same database.
 */
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { BUILT_WORKER_FILE } from '../app/server/inbox/store/ingest-protocol';

export const SERVER_SIDE_FILES = [
  { source: 'app/server/inbox/store/ingest-worker.ts', file: BUILT_WORKER_FILE },
  // The name app/server/node/node-server.entry.ts imports it by.
  { source: 'app/server/cluster/primary.server.ts', file: 'cluster-primary.mjs' },
];

export async function buildServerSideFiles(serverDir: string): Promise<string[]> {
  return Promise.all(
    SERVER_SIDE_FILES.map(async ({ source, file }) => {
      const outfile = join(serverDir, file);
      await build({
        entryPoints: [resolve(source)],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        sourcemap: true,
        external: ['better-sqlite3'],
        alias: { '#app': resolve('app') },
        // CommonJS pieces inlined into an ES module still call require().
        banner: {
          js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
        },
        logLevel: 'warning',
      });
      return outfile;
    }),
  );
}
