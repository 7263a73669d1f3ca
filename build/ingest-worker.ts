/**
 * The inbox's ingest thread as one file beside the built server
 * (`.output/server/inbox-ingest-worker.mjs`): nitro bundles what the server imports, and a
 * worker is started from a file, not imported. esbuild (vite's own) bundles it with our code
 * and @sentry/core inlined; better-sqlite3 stays external, resolved from the server's
 * node_modules, where nitro puts it because the server reads the same database.
 */
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { BUILT_WORKER_FILE } from '../app/server/inbox/store/ingest-protocol';

export const INGEST_WORKER_SOURCE = 'app/server/inbox/store/ingest-worker.ts';

export async function buildIngestWorker(serverDir: string): Promise<string> {
  const outfile = join(serverDir, BUILT_WORKER_FILE);
  await build({
    entryPoints: [resolve(INGEST_WORKER_SOURCE)],
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
}
